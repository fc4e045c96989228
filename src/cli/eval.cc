// graphcost eval: per-graph and mean metrics of a trained run (or a baseline) on a split.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/distributed.h"
#include "cli/scoring.h"
#include "core/error.h"
#include "model/threads.h"

namespace graphcost::cli {

namespace {

struct EvalOptions {
  std::vector<std::string> run_dirs;  // several: an ensemble
  std::string ensemble = "mean";
  int64_t mc_samples = 0;
  std::string baseline;
  std::string data;
  std::string collection;
  std::string split = "valid";
  int64_t max_configs = 0;
  int64_t slate_size = 256;
  int64_t tta = 0;
  int64_t anchors = kAutoAnchors;
  uint64_t seed = 0;
  int threads = 0;
  int prune_hops = kRunPruning;
  bool json = false;
  dist::LaunchOptions launch;
};

// What every rank of a distributed eval must agree on (not paths or threads: the runs and the
// data are compared by their contents).
std::string shared_options(const EvalOptions& o) {
  return nlohmann::json{{"ensemble", o.ensemble},
                        {"mc_samples", o.mc_samples}, {"baseline", o.baseline},
                        {"collection", o.collection}, {"split", o.split},
                        {"max_configs", o.max_configs}, {"slate_size", o.slate_size},
                        {"tta", o.tta},               {"anchors", o.anchors},
                        {"seed", o.seed},             {"prune", o.prune_hops}}
      .dump();
}

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
  model::set_threads(o.threads);
  if (o.run_dirs.empty() == o.baseline.empty()) throw Error("eval: give exactly one of --model and --baseline");
  std::vector<Run> runs;
  Scorer scorer;
  scorer.seed = o.seed;
  scorer.slate_size = o.slate_size;
  scorer.tta = o.tta;
  scorer.anchors = o.anchors;
  scorer.ensemble = o.ensemble;
  scorer.mc_samples = o.mc_samples;
  std::string collection = o.collection;
  if (!o.run_dirs.empty()) {
    std::string trained_on;
    runs = load_runs(o.run_dirs, trained_on);
    for (Run& run : runs) scorer.runs.push_back(&run);
    if (collection.empty()) collection = trained_on;
  } else {
    scorer.baseline = o.baseline;
  }
  if (collection.empty()) throw Error("eval: --collection is needed (the run does not name one)");
  data::CollectionId id = data::CollectionId::parse(collection);
  check_runs_kind(runs, o.run_dirs, id);
  data::LoadOptions load;  // duplicates merged: each distinct configuration counts once
  apply_run_pruning(runs, o.run_dirs, o.prune_hops, load);
  auto c = data::open_collection(o.data, id, o.split, load);
  if (group) check_same_scoring_start(*group, shared_options(o), o.run_dirs, *c);
  scorer.group = group.get();
  std::vector<std::vector<double>> spreads;
  std::vector<eval::GraphScores> scores = score_collection(scorer, *c, o.max_configs, &spreads);
  for (const auto& s : scores) {
    if (s.measured.empty()) throw Error(o.data, s.name, "no runtimes to evaluate against (test split without answers?)");
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
    j["split"] = o.split;
    if (o.mc_samples > 0) j["mc_mean_std"] = mean_spread(spreads);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s %s\n%s", id.str().c_str(), o.split.c_str(), eval::format_table(table).c_str());
    if (o.mc_samples > 0) std::printf("mc dropout: mean predicted std %.6g over %lld passes\n",
                                      mean_spread(spreads), static_cast<long long>(o.mc_samples));
  }
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto o = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand("eval", "Metrics per graph and their means (Kendall tau, OPA; "
                                             "top-1/5/10 error, tile score)");
  add_run_options(cmd, o->run_dirs, o->ensemble, o->tta, o->anchors);
  cmd->add_option("--mc-samples", o->mc_samples,
                  "score by the mean of K Monte Carlo dropout passes and report the mean predicted std (0 = off)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--baseline", o->baseline, "instead of a model: random, or default (tile)");
  cmd->add_option("--data", o->data, "dataset root, collection folder, .npz or pack")->required();
  cmd->add_option("--collection", o->collection, "collection id (default: the run's)");
  cmd->add_option("--split", o->split, "split to evaluate")->capture_default_str();
  cmd->add_option("--max-configs", o->max_configs,
                  "evaluate a seeded sample of at most this many configurations per graph (0 = all)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--slate-size", o->slate_size, "configurations scored per forward pass")
      ->check(at_least(1))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed,
                  "seed for sampling, the random baseline, the anchor sample, the --tta groupings "
                  "and MC dropout")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "threads (0 = all cores)")->capture_default_str();
  cmd->add_option("--prune", o->prune_hops,
                  "prune to K hops around configurable nodes (default: as the run trained; -1: none)");
  cmd->add_flag("--json", o->json, "one JSON object on stdout");
  add_distributed_options(cmd, o->launch);
  cmd->callback([o] { run_eval(*o); });
}

}  // namespace graphcost::cli
