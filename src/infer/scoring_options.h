// How trained runs are scored, apart from which runs: the options eval, predict and the Python
// module take from their users, declared once as a field table (core/option_table.h) from which
// the flags (cli/scoring.h), the Python defaults and checks, the text distributed ranks compare
// and docs/options.md are derived. Plain C++: no LibTorch (the scoring itself is infer/scoring.h).
#pragma once

#include <cstdint>
#include <string>

#include "core/option_table.h"
#include "data/data_options.h"

namespace graphcost::infer {

// The value of an eval/predict --prune-hops flag that means "as the run was trained".
constexpr int kRunPruning = -2;
// The value of anchors that means "the run's training slate size - 1 for attention models".
constexpr int64_t kAutoAnchors = -1;
// The most anchors asked for (a bound that keeps slate arithmetic far from overflow).
constexpr int64_t kMaxAnchors = int64_t{1} << 40;

struct ScoringOptions {
  std::string ensemble = "mean";  // how several runs' scores are combined: mean or rank
  int64_t mc_samples = 0;  // > 0: neural runs score by the mean of this many MC-dropout passes
  uint64_t seed = 0;
  int64_t slate_size = 256;
  int64_t tta = 0;  // > 0: mean score over this many seeded random slate groupings (model/scoring/tta.h)
  // Attention models: > 0 scores against this many fixed anchors (model/scoring/tta.h); kAutoAnchors
  // uses the run's training slate size - 1 unless tta or mc_samples is given; 0 scores in
  // slates of slate_size.
  int64_t anchors = kAutoAnchors;
};

// Every field of ScoringOptions: JSON key, flag, help, check, choices.
OptionTable<ScoringOptions> scoring_option_fields();

// The data options of a command that scores trained runs (eval, predict), before its flags: the
// given split, the runs' collection and pruning (kRunPruning) unless flags say otherwise.
data::DataOptions run_scoring_data_options(const std::string& split);

// Checks every field; the first bad one is an Error "<where>: <key>: <problem>".
void check_scoring_options(const ScoringOptions& options, const std::string& where);

}  // namespace graphcost::infer
