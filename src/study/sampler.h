// Samplers: what a study's next trial tries. Random search, a grid, and the Tree-structured
// Parzen Estimator (study/tpe.h). All are deterministic given (seed, trial number, history), so
// a study run by one worker is reproducible.
#pragma once

#include <cstddef>  // core/random.h uses size_t
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/random.h"
#include "study/space.h"
#include "study/trial.h"

namespace graphcost::study {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // A full assignment (object key -> JSON value: the active parameters only) for the next trial,
  // given every trial so far; values always inside the space.
  virtual nlohmann::json sample(const SearchSpace& space, const std::vector<TrialRecord>& history,
                                int64_t trial_number, bool maximize) = 0;
};

// "tpe" (multivariate), "tpe:independent", "random" or "grid"; options of TPE:
// {"startup_trials": 10, "candidates": 24, "prior_weight": 1.0}. An unknown name or option is an
// Error listing the valid ones.
std::unique_ptr<Sampler> make_sampler(const std::string& name, uint64_t seed,
                                      const nlohmann::json& options);

// Random search: every active parameter uniform (log-uniform for log parameters, uniform over
// the step grid for stepped ones), drawn in file order from the generator `random`.
nlohmann::json sample_random(const SearchSpace& space, graphcost::Random& random);
nlohmann::json sample_random_parameter(const Parameter& parameter, graphcost::Random& random);

// The grid: every combination of categorical choices, int values and stepped float values (a
// continuous float is an Error), in odometer order (the last parameter fastest); a conditional
// parameter only takes part where its condition holds. Larger than 10^6 points is an Error.
int64_t grid_size(const SearchSpace& space);
// Grid point `index` (0 <= index < grid_size). The grid sampler's sample() returns point
// trial_number % grid_size; a study run by several workers uses the trial's grid_index from
// the storage instead (Storage::claim_trial hands each index out once).
nlohmann::json grid_point(const SearchSpace& space, int64_t index);

}  // namespace graphcost::study
