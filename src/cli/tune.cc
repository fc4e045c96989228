// graphcost tune: simulates (or runs) an autotuning campaign over the recorded configurations
// of one graph, for several seeds, and reports how fast each strategy gets near the optimum.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "infer/threads.h"
#include "tune/campaign.h"
#include "tune/genetic_search.h"
#include "tune/measure_command.h"
#include "tune/model_guided_search.h"
#include "tune/strategies.h"
#include "tune/tune_report.h"

namespace graphcost::cli {

namespace {

struct TuneCommand {
  std::string space;
  std::string split = "train";
  std::string graph;
  std::string device;
  int64_t budget = 100;
  std::string strategy = "model";  // ahead of genetic on every shared space (docs/tune.md)
  int64_t seeds = 10;
  uint64_t seed = 0;
  int64_t batch = 0;  // 0: the strategy's default (tune::default_batch)
  std::string measure;
  std::string out;
  bool json = false;
  int threads = 0;
  int64_t initial = -1;  // < 0: the strategy's default
  std::string pretrained;
  std::string devices;
  std::string device_name;
  tune::GeneticOptions genetic;
  tune::ModelGuidedOptions model;  // "neural"
  tune::BayesianOptions bayesian;  // "bo" and "model"
};

// The Kernel Tuner device options of the caches tune reads (--devices, --device-name).
data::LoadOptions device_load_options(const TuneCommand& c) {
  data::LoadOptions load;
  load.devices = c.devices;
  load.device_name = c.device_name;
  return load;
}

bool is_bayesian(const std::string& strategy) { return strategy == "bo" || strategy == "model"; }

// Whether records hold a graph other than the one called target (a copy of the target's own
// cache is the target).
bool holds_another(const data::Collection& records, const std::string& target) {
  for (int64_t g = 0; g < records.size(); ++g) {
    if (records.graph(g).name != target) return true;
  }
  return false;
}

// bo's prior: its source as tune.json reports it ("" : none) and, where they are already open,
// its records (--space's own, or the caches beside it), so that no cache is read twice.
struct BoPrior {
  std::string path;
  std::optional<tune::TuneRecords> beside;  // the caches beside a one-cache --space
  bool from_space = false;                  // --space's own records
};

// The caches beside --space when --space is one Kernel Tuner cache and other caches of the same
// parameters lie beside it (as the Python strategy's caches_at_hand); none otherwise. A folder
// that does not read as one kernel's caches gives a warning line and no prior.
BoPrior caches_beside(const TuneCommand& c, const std::vector<io::KernelTunerParameter>& layout,
                      const std::string& target) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_regular_file(c.space, error)) return {};
  const fs::path parent = fs::path(c.space).parent_path();
  const std::string folder = parent.empty() ? "." : parent.string();
  bool others = false;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    if (io::is_kernel_tuner_cache(entry.path().string()) &&
        !fs::equivalent(entry.path(), c.space, error))
      others = true;
  }
  if (!others) return {};
  try {
    tune::TuneRecords beside = tune::open_tune_source(folder, c.split, device_load_options(c));
    bool same = beside.layout.size() == layout.size();
    for (size_t k = 0; same && k < layout.size(); ++k) same = beside.layout[k].name == layout[k].name;
    if (same) {
      if (!holds_another(*beside.collection, target)) return {};
      BoPrior prior;
      prior.path = folder;
      prior.beside = std::move(beside);
      return prior;
    }
    std::fprintf(stderr, "graphcost: warning: no prior from %s: its caches are not all of %s's "
                 "parameters (give --pretrained)\n", folder.c_str(), c.space.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "graphcost: warning: no prior from %s: %s\n", folder.c_str(), e.what());
  }
  return {};
}

// Where bo's prior comes from: --pretrained, or by default the other Kernel Tuner caches at
// hand: those of --space itself where it is a folder of several, or those beside it where it
// is one cache (other devices of the kernel; the target is always left out). The harness of
// docs/tune.md, "Against Kernel Tuner's strategies", found the prior ahead on its aggregate.
// "none" turns it off.
BoPrior bo_prior(const TuneCommand& c, const tune::TuneRecords& records) {
  BoPrior prior;
  if (c.pretrained == "none") return prior;
  if (!c.pretrained.empty() || records.layout.empty()) {
    prior.path = c.pretrained;
    return prior;
  }
  const std::string& target = records.collection->graph(records.target).name;
  if (records.collection->size() == 1) return caches_beside(c, records.layout, target);
  if (holds_another(*records.collection, target)) {
    prior.path = c.space;
    prior.from_space = true;
  }
  return prior;
}

// prior_records: bo's prior source already open (c.pretrained names it), or nullptr.
std::unique_ptr<tune::Strategy> make_strategy(TuneCommand c, const data::Collection& records,
                                              int64_t target, const tune::SearchSpace& space,
                                              const tune::TuneRecords* prior_records) {
  if (c.strategy == "neural") {
    if (c.initial >= 0) c.model.initial = c.initial;
    c.model.pretrained = c.pretrained;
    return std::make_unique<tune::ModelGuidedStrategy>(c.model, records.graph(target),
                                                       records.configs(target));
  }
  tune::StrategyOptions options;
  options.genetic = c.genetic;
  options.bayesian = c.bayesian;
  if (c.initial >= 0) options.bayesian.initial = c.initial;
  options.bayesian.ensemble.trees.threads = c.threads;
  if (is_bayesian(c.strategy) && !c.pretrained.empty()) {
    // Transfer: the other devices' records of the kernel (never the target itself) and the
    // devices' properties train a prior for the target.
    const data::DeviceTable table = data::DeviceTable::with_file(c.devices);
    const std::vector<tune::PriorSpace> sources =
        prior_records != nullptr
            ? tune::load_prior_spaces(*prior_records, c.pretrained, space.name, table)
            : tune::load_prior_spaces(c.pretrained, c.split, space.name, table);
    const data::DeviceProperties* device = table.find(space.name);
    if (device == nullptr) {
      std::fprintf(stderr,
                   "graphcost: warning: no device in the table matches '%s'; its properties are "
                   "unknown to the prior (add it with --devices FILE)\n",
                   space.name.c_str());
    }
    options.prior = tune::fit_transfer_prior(sources, space, device, options.bayesian.ensemble.trees);
  }
  return tune::make_strategy(c.strategy, options, {"neural"});
}

nlohmann::json settings_json(const TuneCommand& c) {
  nlohmann::json j = {{"space", c.space},   {"split", c.split},       {"graph", c.graph},
                      {"device", c.device}, {"strategy", c.strategy}, {"budget", c.budget},
                      {"seeds", c.seeds},   {"seed", c.seed},         {"batch", c.batch},
                      {"measure", c.measure}};
  if (c.strategy == "genetic") {
    j["population"] = c.genetic.population;
    j["tournament"] = c.genetic.tournament;
    j["mutation"] = c.genetic.mutation;
  } else if (is_bayesian(c.strategy)) {
    const tune::BayesianOptions& b = c.bayesian;
    j["initial"] = c.initial >= 0 ? c.initial : b.initial;
    j["members"] = b.ensemble.members;
    j["rounds"] = b.ensemble.trees.rounds;
    j["max_depth"] = b.ensemble.trees.max_depth;
    j["calibrate"] = b.ensemble.calibrate;
    j["parents"] = b.parents;
    j["crossovers"] = b.crossovers;
    j["random_candidates"] = b.random_candidates;
    j["explore"] = b.explore;
    j["warp"] = b.warp;
    j["radius"] = b.radius;
    j["greedy"] = b.greedy;
    j["pretrained"] = c.pretrained;
    j["devices"] = c.devices;
  } else if (c.strategy == "neural") {
    j["initial"] = c.initial >= 0 ? c.initial : c.model.initial;
    j["hidden"] = c.model.hidden;
    j["dropout"] = c.model.dropout;
    j["train_steps"] = c.model.train_steps;
    j["lr"] = c.model.lr;
    j["slate_size"] = c.model.slate_size;
    j["mc_samples"] = c.model.mc_samples;
    j["kappa"] = c.model.kappa;
    j["pretrained"] = c.pretrained;
  }
  return j;
}

void print_summary(const nlohmann::json& report) {
  std::printf("%s: %lld configurations (%lld failed), optimum %s\n",
              report["graph"].get<std::string>().c_str(),
              report["configurations"].get<long long>(),
              report["failed_configurations"].get<long long>(),
              report["optimum"].is_number()
                  ? std::to_string(report["optimum"].get<double>()).c_str()
                  : "unknown");
  const nlohmann::json& s = report["settings"];
  std::printf("strategy %s, budget %lld, %lld seeds\n", s["strategy"].get<std::string>().c_str(),
              s["budget"].get<long long>(), s["seeds"].get<long long>());
  for (const char* key : {"reach_1pct", "reach_5pct", "reach_10pct"}) {
    if (!report.contains(std::string(key) + "_seeds")) continue;
    const long long reached = report[std::string(key) + "_seeds"].get<long long>();
    const nlohmann::json& all = report[std::string(key) + "_mean_with_misses"];
    const nlohmann::json& median = report[std::string(key) + "_median_with_misses"];
    std::printf("  %-12s %8s measurements over the %lld/%lld seeds that got there; over all, a "
                "miss as budget + 1: mean %s, median %s\n",
                key, report[key].is_number() ? std::to_string(report[key].get<double>()).c_str() : "-",
                reached, s["seeds"].get<long long>(),
                all.is_number() ? std::to_string(all.get<double>()).c_str() : "-",
                median.is_number() ? std::to_string(median.get<double>()).c_str() : "-");
  }
}

void run(const TuneCommand& c) {
  check_data(c.budget > 0, "tune", "--budget", "must be positive");
  check_data(c.seeds > 0, "tune", "--seeds", "must be positive");
  check_data(c.batch >= 0, "tune", "--batch", "must not be negative");
  infer::set_threads(c.threads);
  tune::TuneRecords records = tune::open_tune_records(c.space, c.split, c.graph, c.device, device_load_options(c));
  const data::Collection& collection = *records.collection;
  const tune::SearchSpace space = tune::make_search_space(
      collection.graph(records.target).name, collection.configs(records.target), records.layout);
  TuneCommand command = c;  // with bo's prior and the batch resolved, as it runs and reports
  if (command.batch == 0) command.batch = tune::default_batch(c.strategy);
  BoPrior prior;
  if (is_bayesian(c.strategy)) {
    prior = bo_prior(c, records);
    command.pretrained = prior.path;
  }
  const tune::TuneRecords* prior_records =
      prior.from_space ? &records : prior.beside ? &*prior.beside : nullptr;
  std::unique_ptr<tune::Strategy> strategy =
      make_strategy(command, collection, records.target, space, prior_records);
  std::unique_ptr<tune::Measurer> measurer;
  if (c.measure.empty()) {
    measurer = std::make_unique<tune::RecordedMeasurer>(space);
  } else {
    measurer = std::make_unique<tune::CommandMeasurer>(space, c.measure);
  }
  const int64_t per_seed = std::min(c.budget, space.count);
  Progress progress("tune " + c.strategy, c.seeds * per_seed, "measurements");
  std::vector<tune::SeedCampaign> runs;
  for (int64_t s = 0; s < c.seeds; ++s) {
    const uint64_t seed = c.seed + static_cast<uint64_t>(s);
    const int64_t done_before = s * per_seed;
    auto observer = [&](const tune::History& history) {
      double best = INFINITY;
      for (const tune::Measurement& m : history.measurements) {
        if (!m.failed) best = std::min(best, m.time);
      }
      progress.update(done_before + history.size(),
                      "seed " + std::to_string(seed) + " best " + std::to_string(best));
    };
    runs.push_back({seed, tune::run_campaign(space, *strategy, *measurer, c.budget, command.batch, seed,
                                             observer)});
  }
  progress.finish();
  const double optimum = tune::campaign_optimum(space, runs, c.measure.empty());
  nlohmann::json report = tune::campaign_report(space, runs, optimum, settings_json(command));
  report["optimum_source"] = c.measure.empty() ? "recorded" : "best measured";
  if (!c.out.empty()) {
    std::filesystem::create_directories(c.out);
    write_file_atomically(c.out + "/tune.json", report.dump(1) + "\n");
    write_file_atomically(c.out + "/curve.svg", tune::campaign_curve_svg(report));
  }
  if (c.json) {
    std::printf("%s\n", report.dump().c_str());
  } else {
    print_summary(report);
    if (!c.out.empty()) std::printf("report in %s/tune.json, plot in %s/curve.svg\n", c.out.c_str(), c.out.c_str());
  }
}

}  // namespace

void add_tune_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "tune", "Simulate an autotuning campaign on recorded measurements (or measure for real)");
  auto c = std::make_shared<TuneCommand>();
  sub->add_option("--space", c->space,
                  "Records: Kernel Tuner cache or folder, TpuGraphs tile .npz, collection or pack")
      ->required();
  sub->add_option("--split", c->split, "Split, where the records have several")->capture_default_str();
  sub->add_option("--graph", c->graph, "The target graph's name, where the records hold several");
  sub->add_option("--device", c->device,
                  "Pick the target graph whose name contains this (e.g. A100)");
  sub->add_option("--budget", c->budget, "Measurements per campaign")->capture_default_str();
  sub->add_option("--strategy", c->strategy,
                  "random, genetic, bo (Bayesian optimisation on bagged XGBoost), model (= bo) or "
                  "neural (a neural ranker with MC dropout)")
      ->capture_default_str();
  sub->add_option("--seeds", c->seeds, "Campaigns, with seeds --seed, --seed + 1, ...")
      ->capture_default_str();
  sub->add_option("--seed", c->seed, "First seed")
      ->check(unsigned_64())
      ->capture_default_str();
  sub->add_option("--batch", c->batch,
                  "Configurations proposed per round (0: the strategy's default, 5 for bo and "
                  "model, 10 for the others)")
      ->capture_default_str();
  sub->add_option("--measure", c->measure,
                  "Measure for real: shell command with {params} or {name} placeholders; its "
                  "time is the last number on stdout");
  sub->add_option("--out", c->out, "Folder for tune.json and curve.svg");
  sub->add_flag("--json", c->json, "Print one JSON object on stdout");
  add_threads_option(sub, c->threads, "threads of the bo and neural strategies");
  sub->add_option("--population", c->genetic.population, "genetic: population size")
      ->capture_default_str();
  sub->add_option("--tournament", c->genetic.tournament, "genetic: tournament size")
      ->capture_default_str();
  sub->add_option("--mutation", c->genetic.mutation,
                  "genetic: per-parameter mutation probability (< 0: 1 / parameters)")
      ->capture_default_str();
  sub->add_option("--initial", c->initial,
                  "bo, neural: measurements before the first model (< 0: 20 for bo, 30 for neural)")
      ->capture_default_str();
  sub->add_option("--pretrained", c->pretrained,
                  "bo: Kernel Tuner cache or folder of the same kernel on other devices (a prior; "
                  "the target's own graph is left out; default: the other caches of --space, or "
                  "beside it, of the same parameters; none: no prior); neural: a run folder "
                  "(model.pt) or model file");
  sub->add_option("--devices", c->devices,
                  "A device table (JSON, as src/data/devices.json) adding to or replacing the "
                  "built-in devices: the caches' device columns and bo's prior");
  sub->add_option("--device-name", c->device_name,
                  "Kernel Tuner: the device of a cache whose device_name is empty");
  sub->add_option("--members", c->bayesian.ensemble.members, "bo: bagged tree models")
      ->capture_default_str();
  sub->add_option("--rounds", c->bayesian.ensemble.trees.rounds, "bo: boosting rounds per model")
      ->capture_default_str();
  sub->add_option("--max-depth", c->bayesian.ensemble.trees.max_depth, "bo: tree depth")
      ->capture_default_str();
  sub->add_option("--parents", c->bayesian.parents,
                  "bo: best measured configurations mutated and crossed over")
      ->capture_default_str();
  sub->add_option("--crossovers", c->bayesian.crossovers, "bo: crossover candidates per batch")
      ->capture_default_str();
  sub->add_option("--random-candidates", c->bayesian.random_candidates,
                  "bo: random candidates per batch (and, with a prior, its best)")
      ->capture_default_str();
  sub->add_option("--radius", c->bayesian.radius,
                  "bo: candidates within this many parameters of the best measured configuration")
      ->capture_default_str();
  sub->add_option("--greedy", c->bayesian.greedy,
                  "bo: slots of each batch for the lowest predicted time, before expected improvement")
      ->capture_default_str();
  sub->add_option("--warp", c->bayesian.warp,
                  "bo: what the surrogate learns: log (the log time) or rank (normal scores of "
                  "the measured times' ranks)")
      ->capture_default_str();
  sub->add_option("--explore", c->bayesian.explore, "bo: share of each batch measured at random")
      ->capture_default_str();
  sub->add_option("--hidden", c->model.hidden, "neural: layer widths of a fresh model")
      ->capture_default_str();
  sub->add_option("--dropout", c->model.dropout, "neural: dropout (MC dropout needs > 0)")
      ->capture_default_str();
  sub->add_option("--train-steps", c->model.train_steps, "neural: Adam steps per round")
      ->capture_default_str();
  sub->add_option("--lr", c->model.lr, "neural: learning rate")->capture_default_str();
  sub->add_option("--slate-size", c->model.slate_size, "neural: configurations per training slate")
      ->capture_default_str();
  sub->add_option("--mc-samples", c->model.mc_samples, "neural: MC dropout passes")
      ->capture_default_str();
  sub->add_option("--kappa", c->model.kappa,
                  "neural: acquisition mean - kappa * std (lower confidence bound on cost)")
      ->capture_default_str();
  sub->callback([c] { run(*c); });
}

}  // namespace graphcost::cli
