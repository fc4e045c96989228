// What eval and predict share: opening a trained run and scoring a collection's
// configurations with it, or with a baseline.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "data/collection.h"
#include "dist/group.h"
#include "eval/summary.h"
#include "model/ranker.h"
#include "xgb/ranker.h"

namespace graphcost::cli {

// A trained run folder: its model (a neural ranker, or an XGBoost ranker when config.json says
// "model_type": "xgboost") and the collection it was trained on.
struct Run {
  model::Ranker ranker{nullptr};
  std::shared_ptr<const xgb::XgbRanker> xgb;  // set instead of ranker for XGBoost runs
  std::string collection;  // the collection id the run was trained on ("" when unknown)
  int prune_hops = -1;      // the pruning the run trained with (-1: none)
  std::string prune_seeds = "all";
  int64_t slate_size = 0;  // the training slate size from config.json (0 when unknown)
};

// Loads RUN_DIR/model.pt (or RUN_DIR/model.xgb for an XGBoost run) and, from
// RUN_DIR/config.json, the collection id and pruning.
Run load_run(const std::string& run_dir);

// An Error naming the run when a run was trained on configurations of another kind than
// collection `id` holds (a tile model asked to score layout:xla:random).
void check_runs_kind(const std::vector<Run>& runs, const std::vector<std::string>& run_dirs,
                     const data::CollectionId& id);

// The value of an eval/predict --prune flag that means "as the run was trained".
constexpr int kRunPruning = -2;
// The value of --anchors that means "the run's training slate size - 1 for attention models".
constexpr int64_t kAutoAnchors = -1;
// Sets load's pruning to the runs' (which must agree), or to prune_hops when it is not
// kRunPruning.
void apply_run_pruning(const std::vector<Run>& runs, const std::vector<std::string>& run_dirs,
                       int prune_hops, data::LoadOptions& load);

// The options eval and predict share: --model (repeat it for an ensemble), --ensemble, --tta
// and --anchors. Returns the --model option.
CLI::Option* add_run_options(CLI::App* cmd, std::vector<std::string>& run_dirs,
                             std::string& ensemble, int64_t& tta, int64_t& anchors);

// Loads several runs (an ensemble) and returns them with the collection they agree on ("" when
// none names one); runs trained on different collections are an Error naming both.
std::vector<Run> load_runs(const std::vector<std::string>& run_dirs, std::string& collection);

// How to score: one or several runs (an ensemble, see eval/ensemble.h), or a baseline
// ("random", or "default" for tile: the compiler's default configuration first, i.e. the one
// whose runtime equals its normaliser).
struct Scorer {
  std::vector<Run*> runs;
  std::string ensemble = "mean";  // how several runs' scores are combined: mean or rank
  int64_t mc_samples = 0;         // > 0: neural runs score by the mean of this many MC-dropout passes
  std::string baseline;
  uint64_t seed = 0;
  int64_t slate_size = 256;
  int64_t tta = 0;  // > 0: mean score over this many seeded random slate groupings (model/tta.h)
  // Attention models: > 0 scores against this many fixed anchors (model/tta.h); kAutoAnchors
  // uses the run's training slate size - 1 unless --tta or --mc-samples is given; 0 scores in
  // slates of slate_size. The default is the command lines'.
  int64_t anchors = kAutoAnchors;
  // Across processes (docs/distributed.md): each rank scores the graphs it owns and every rank
  // returns every graph's scores, the same as one process's. Null: this process scores all.
  dist::Group* group = nullptr;
};

// Scores every graph of the collection: all configurations, or a seeded sample of at most
// max_configs per graph (0 = all). Shows a progress line. With mc_samples > 0 and spreads
// given, (*spreads)[g][i] is the MC-dropout standard deviation of configuration i of graph g
// (averaged over the neural runs; 0 for XGBoost runs).
std::vector<eval::GraphScores> score_collection(const Scorer& scorer, const data::Collection& c,
                                                int64_t max_configs,
                                                std::vector<std::vector<double>>* spreads = nullptr);

}  // namespace graphcost::cli
