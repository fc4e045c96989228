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
};

// Loads RUN_DIR/model.pt and the collection id from RUN_DIR/config.json.
Run load_run(const std::string& run_dir);

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
