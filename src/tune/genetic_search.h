// A genetic algorithm over the tunable parameters, restricted to the recorded configurations
// (the default strategy of common kernel tuners): a population, tournament selection, uniform
// crossover and per-parameter mutation; each child is mapped to the nearest recorded
// configuration not measured yet.
#pragma once

#include <cstddef>  // core/random.h uses size_t
#include <cstdint>
#include <vector>

#include "core/random.h"
#include "tune/campaign.h"

namespace graphcost::tune {

struct GeneticOptions {
  int64_t population = 20;  // members per generation (also the first random sample)
  int64_t tournament = 2;   // members drawn per parent selection; the fastest wins
  double mutation = -1.0;   // per-parameter mutation probability; < 0: 1 / parameters
};

// Distance between a parameter assignment and configuration j: per ordered parameter the level
// difference over (levels - 1), per categorical one 0 or 1, summed.
double level_distance(const SearchSpace& space, const int32_t* levels, int64_t j);

// The configuration nearest to levels (level_distance) among those with taken[j] == 0; ties go
// to the first in scanning order, which starts at configuration `start` and wraps around.
// -1 when every configuration is taken.
int64_t nearest_free_config(const SearchSpace& space, const std::vector<int32_t>& levels,
                            const std::vector<uint8_t>& taken, int64_t start);

class GeneticStrategy : public Strategy {
 public:
  explicit GeneticStrategy(GeneticOptions options = {});
  std::string name() const override { return "genetic"; }
  void reset(const SearchSpace& space, uint64_t seed) override;
  std::vector<int64_t> propose(const SearchSpace& space, const History& history,
                               int64_t count) override;

 private:
  void absorb(const History& history);  // reads new measurements into fitness_
  void next_generation(const SearchSpace& space, const History& history);
  int64_t select_parent();

  GeneticOptions options_;
  Random rng_{0};
  std::vector<double> fitness_;     // per configuration: time, +inf when failed or unmeasured
  int64_t absorbed_ = 0;            // measurements of the history already read
  std::vector<int64_t> population_;  // measured members, fastest first
  std::vector<int64_t> children_;    // the current generation, proposed in order
  size_t next_child_ = 0;
};

}  // namespace graphcost::tune
