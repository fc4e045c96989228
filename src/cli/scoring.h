// What eval and predict share: opening a trained run and scoring a collection's
// configurations with it, or with a baseline.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/collection.h"
#include "eval/summary.h"
#include "model/ranker.h"

namespace graphcost::cli {

// A trained run folder: its model and the collection it was trained on.
struct Run {
  model::Ranker ranker{nullptr};
  std::string collection;  // the collection id the run was trained on ("" when unknown)
  int prune_hops = -1;       // the pruning the run trained with (-1: none)
  std::string prune_seeds = "all";
};

// Loads RUN_DIR/model.pt and, from RUN_DIR/config.json, the collection id and pruning.
Run load_run(const std::string& run_dir);

// The value of an eval/predict --prune flag that means "as the run was trained".
constexpr int kRunPruning = -2;
// Sets load's pruning to the run's, or to prune_hops when it is not kRunPruning.
void apply_run_pruning(const Run& run, int prune_hops, data::LoadOptions& load);

// How to score: a model, or a baseline ("random", or "default" for tile: the compiler's
// default configuration first, i.e. the one whose runtime equals its normaliser).
struct Scorer {
  model::Ranker* ranker = nullptr;
  std::string baseline;
  uint64_t seed = 0;
  int64_t slate_size = 256;
  int64_t tta = 0;  // > 0: mean score over this many seeded random slate groupings (model/tta.h)
};

// Scores every graph of the collection: all configurations, or a seeded sample of at most
// max_configs per graph (0 = all). Shows a progress line.
std::vector<eval::GraphScores> score_collection(const Scorer& scorer, const data::Collection& c,
                                                int64_t max_configs);

}  // namespace graphcost::cli
