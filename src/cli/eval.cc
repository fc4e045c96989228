// graphcost eval: per-graph and mean metrics of a trained run (or a baseline) on a split.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/distributed.h"
#include "cli/option_flags.h"
#include "cli/scoring.h"
#include "core/error.h"
#include "infer/scoring.h"
#include "infer/threads.h"
#include "io/collection_readers.h"
#include "model/kernels/gemm_ledger.h"

namespace graphcost::cli {

namespace {

// The scoring options (ensemble, mc_samples, seed, slate_size, tta, anchors) and eval's own.
struct EvalOptions : infer::ScoringOptions {
  std::vector<std::string> run_dirs;  // several: an ensemble
  std::string baseline;
  // data, collection (default: the run's), split, prune_hops (default: as the run trained),
  // devices, device_name
  data::DataOptions source = infer::run_scoring_data_options("valid");
  int64_t max_configs = 0;
  int threads = 0;
  std::string precision = "fp32";
  bool json = false;
  dist::LaunchOptions launch;
};

// Mean MC-dropout standard deviation over every scored configuration of every graph.
double mean_spread(const std::vector<std::vector<double>>& spreads) {
  double sum = 0;
  int64_t count = 0;
  for (const auto& graph : spreads) {
    for (double s : graph) sum += s;
    count += static_cast<int64_t>(graph.size());
  }
  return count ? sum / count : 0.0;
}

void run_eval(const EvalOptions& o) {
  const std::unique_ptr<dist::Group> group = dist::join(o.launch);
  infer::set_threads(o.threads);
  infer::set_precision(o.precision);
  if (o.run_dirs.empty() == o.baseline.empty()) throw Error("eval: give exactly one of --model and --baseline");
  std::vector<infer::TrainedModel> runs;
  std::string collection = o.source.collection;
  if (!o.run_dirs.empty()) {
    std::string trained_on;
    runs = infer::load_runs(o.run_dirs, trained_on);
    if (collection.empty()) collection = trained_on;
  }
  infer::Scorer scorer(o, runs);
  scorer.baseline = o.baseline;
  if (collection.empty()) throw Error("eval: --collection is needed (the run does not name one)");
  data::CollectionId id = data::CollectionId::parse(collection);
  infer::check_runs_kind(runs, o.run_dirs, id);
  // Duplicates merged: each distinct configuration counts once.
  data::LoadOptions load = o.source.unpruned_load_options();
  infer::apply_run_pruning(runs, o.run_dirs, o.source.prune_hops, load);
  auto c = io::open_collection(o.source.data, id, o.source.split, load);
  if (group) check_same_scoring_start(
        *group, scoring_start_text(o, o.source, {{"baseline", o.baseline}, {"max_configs", o.max_configs}}),
        o.run_dirs, *c);
  scorer.group = group.get();
  std::vector<std::vector<double>> spreads;
  model::reset_gemm_tallies();
  const auto scoring_start = std::chrono::steady_clock::now();
  std::vector<eval::GraphScores> scores = infer::score_collection(scorer, *c, o.max_configs, &spreads);
  const double scoring_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - scoring_start).count();
  if (!runs.empty() && (group == nullptr || group->leader()))
    std::fprintf(stderr, "eval: scoring: %s\n", model::gemm_summary(scoring_seconds).c_str());
  for (const auto& s : scores) {
    if (s.measured.empty()) throw Error(o.source.data, s.name, "no runtimes to evaluate against (test split without answers?)");
  }
  if (group && !group->leader()) return;  // rank 0 writes what all computed
  eval::MetricTable table = eval::evaluate(id.kind, scores);
  for (const auto& s : scores) {
    const std::string warning = eval::tied_scores_warning(s);
    if (!warning.empty()) std::fprintf(stderr, "eval: warning: %s\n", warning.c_str());
  }
  if (o.json) {
    nlohmann::json j = eval::to_json(table);
    j["collection"] = id.str();
    j["split"] = o.source.split;
    if (o.mc_samples > 0) j["mc_mean_std"] = mean_spread(spreads);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s %s\n%s", id.str().c_str(), o.source.split.c_str(), eval::format_table(table).c_str());
    if (o.mc_samples > 0) std::printf("mc dropout: mean predicted std %.6g over %lld passes\n",
                                      mean_spread(spreads), static_cast<long long>(o.mc_samples));
  }
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand("eval", "Metrics per graph and their means (Kendall tau, OPA; "
                                             "top-1/5/10 error, tile score)");
  const ScoringFlags scoring = add_scoring_options(cmd, o->run_dirs, *o);
  scoring.mc_samples->description(
      "score by the mean of K Monte Carlo dropout passes and report the mean predicted std "
      "(0 = off)");
  scoring.seed->description(
      "seed for sampling, the random baseline, the anchor sample, the --tta groupings and MC "
      "dropout");
  cmd->add_option("--baseline", o->baseline, "instead of a model: random, or default (tile)");
  const auto data = add_data_options(
      cmd, o->source, {"data", "collection", "split", "prune_hops", "devices", "device_name"},
      {{"collection", "collection id (default: the run's)"},
       {"split", "split to evaluate"},
       {"prune_hops",
        "prune to K hops around configurable nodes (default: as the run trained; -1: none)"}});
  data.at("data")->required();
  data.at("prune_hops")->default_str("");
  cmd->add_option("--max-configs", o->max_configs,
                  "evaluate a seeded sample of at most this many configurations per graph (0 = all)")
      ->check(at_least(0))
      ->capture_default_str();
  add_threads_option(cmd, o->threads, "threads");
  add_precision_option(cmd, o->precision);
  cmd->add_flag("--json", o->json, "one JSON object on stdout");
  add_distributed_options(cmd, o->launch);
  cmd->callback([o] { run_eval(*o); });
}

}  // namespace graphcost::cli
