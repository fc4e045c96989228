// graphcost predict: rank every configuration of a split and write a Kaggle submission file
// (submit, which merges the five collections' files into one, is in submit.cc).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/distributed.h"
#include "cli/option_flags.h"
#include "cli/scoring.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "eval/submission.h"
#include "infer/scoring.h"
#include "infer/threads.h"
#include "io/collection_readers.h"

namespace graphcost::cli {

namespace {

// The scoring options (ensemble, mc_samples, seed, slate_size, tta, anchors) and predict's own.
struct PredictOptions : infer::ScoringOptions {
  std::vector<std::string> run_dirs;  // several: an ensemble
  // data, collection (default: the run's), split, prune_hops (default: as the run trained),
  // devices, device_name
  data::DataOptions source = infer::run_scoring_data_options("test");
  std::string out;
  std::string scores_out;  // optional JSON of every graph's scores (what `serve` answers)
  int threads = 0;
  std::string precision = "fp32";
  dist::LaunchOptions launch;
};

void run_predict(const PredictOptions& o) {
  const std::unique_ptr<dist::Group> group = dist::join(o.launch);
  infer::set_threads(o.threads);
  infer::set_precision(o.precision);
  std::string trained_on;
  std::vector<infer::TrainedModel> runs = infer::load_runs(o.run_dirs, trained_on);
  std::string collection = o.source.collection.empty() ? trained_on : o.source.collection;
  if (collection.empty()) throw Error("predict: --collection is needed (the run does not name one)");
  data::CollectionId id = data::CollectionId::parse(collection);
  infer::check_runs_kind(runs, o.run_dirs, id);
  data::LoadOptions load = o.source.unpruned_load_options();
  load.merge_duplicates = false;  // indices must be the file's own
  infer::apply_run_pruning(runs, o.run_dirs, o.source.prune_hops, load);  // pruning keeps every configuration
  auto c = io::open_collection(o.source.data, id, o.source.split, load);
  if (group) check_same_scoring_start(*group, scoring_start_text(o, o.source), o.run_dirs, *c);
  infer::Scorer scorer(o, runs);
  scorer.group = group.get();
  std::vector<eval::SubmissionEntry> entries;
  for (auto& s : infer::score_collection(scorer, *c, 0)) entries.push_back({s.name, std::move(s.predicted)});
  if (group && !group->leader()) return;  // rank 0 writes what all computed
  eval::write_submission(o.out, id, entries);
  if (!o.scores_out.empty()) {
    // nlohmann writes each double with the digits that read back to the same bits.
    nlohmann::json scores = nlohmann::json::object();
    for (const auto& entry : entries) scores[entry.stem] = entry.predicted;
    write_file_atomically(o.scores_out, scores.dump() + "\n");
  }
  std::printf("wrote %s: %zu graphs of %s %s\n", o.out.c_str(), entries.size(), id.str().c_str(),
              o.source.split.c_str());
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "Rank every configuration and write a Kaggle submission file");
  const ScoringFlags scoring = add_scoring_options(cmd, o->run_dirs, *o);
  scoring.model->required();
  scoring.mc_samples->description("rank by the mean of K Monte Carlo dropout passes (0 = off)");
  const auto data = add_data_options(
      cmd, o->source, {"data", "collection", "split", "prune_hops", "devices", "device_name"},
      {{"collection", "collection id (default: the run's)"},
       {"split", "split to rank"},
       {"prune_hops",
        "prune to K hops around configurable nodes (default: as the run trained; -1: none)"}});
  data.at("data")->required();
  data.at("prune_hops")->default_str("");
  cmd->add_option("--out", o->out, "submission CSV to write")->required();
  cmd->add_option("--scores", o->scores_out,
                  "also write every graph's scores (lower = faster) as JSON {graph: [score, ...]}");
  add_threads_option(cmd, o->threads, "threads");
  add_precision_option(cmd, o->precision);
  add_distributed_options(cmd, o->launch);
  cmd->callback([o] { run_predict(*o); });
}

}  // namespace graphcost::cli
