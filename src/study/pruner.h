// Pruners: whether a running trial should stop early, from the intermediate values it and the
// other trials reported.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "study/trial.h"

namespace graphcost::study {

class Pruner {
 public:
  virtual ~Pruner() = default;
  // Whether the trial should stop now, after reporting its value at `step` (already in
  // trial.intermediate); `history` holds the other trials (the trial itself is skipped if there).
  virtual bool should_prune(const TrialRecord& trial, int64_t step,
                            const std::vector<TrialRecord>& history, bool maximize) const = 0;
};

// "median" (options startup_trials = 5, warmup_steps = 0), "asha" (min_resource = 1,
// reduction_factor = 3) or "none". An unknown name or option is an Error listing the valid ones.
//
// median: prunes when the trial's best value so far (steps <= step) is strictly worse than the
// median of the values other finished (complete or pruned) trials reported at this same step;
// never before startup_trials trials completed, before step warmup_steps, or when no other
// trial reported at this step.
//
// asha: asynchronous successive halving (Li et al. 2018, "Massively Parallel Hyperparameter
// Tuning", arXiv:1810.05934; MLSys 2020 as "A System for Massively Parallel Hyperparameter
// Tuning"). Rungs at steps min_resource * reduction_factor^k, k = 0, 1, ... A trial is judged
// when a report takes it to or past a rung it had not reached before; its value there (the
// first value reported at a step >= the rung) competes with the values every other trial
// reported on reaching that rung. It goes on only if it is among the best
// max(1, floor(n / reduction_factor)) of the n values at the rung, its own included (ties go
// on): with fewer than reduction_factor values only the best so far goes on, since a trial
// cannot wait at the rung for others here.
std::unique_ptr<Pruner> make_pruner(const std::string& name, const nlohmann::json& options);

}  // namespace graphcost::study
