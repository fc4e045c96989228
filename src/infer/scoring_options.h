// How trained runs are scored, apart from which runs: the options eval, predict and the Python
// module take from their users. Plain C++ (no LibTorch), so that the command-line flags
// (cli/scoring.h) build without the model; the scoring itself is infer/scoring.h's.
#pragma once

#include <cstdint>
#include <string>

namespace graphcost::infer {

// The value of an eval/predict --prune flag that means "as the run was trained".
constexpr int kRunPruning = -2;
// The value of --anchors that means "the run's training slate size - 1 for attention models".
constexpr int64_t kAutoAnchors = -1;

// How trained runs are scored, apart from which runs: the options eval, predict and the Python
// module take from their users (the defaults are the command lines').
struct ScoringOptions {
  std::string ensemble = "mean";  // how several runs' scores are combined: mean or rank
  int64_t mc_samples = 0;         // > 0: neural runs score by the mean of this many MC-dropout passes
  uint64_t seed = 0;
  int64_t slate_size = 256;
  int64_t tta = 0;  // > 0: mean score over this many seeded random slate groupings (model/scoring/tta.h)
  // Attention models: > 0 scores against this many fixed anchors (model/scoring/tta.h); kAutoAnchors
  // uses the run's training slate size - 1 unless --tta or --mc-samples is given; 0 scores in
  // slates of slate_size.
  int64_t anchors = kAutoAnchors;
};

}  // namespace graphcost::infer
