#include "tune/genetic_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace graphcost::tune {

double level_distance(const SearchSpace& space, const int32_t* levels, int64_t j) {
  const int32_t* other = space.config_levels(j);
  double d = 0.0;
  for (int64_t p = 0; p < space.parameter_count(); ++p) {
    if (levels[p] == other[p]) continue;
    const TuneParameter& param = space.parameters[p];
    const int64_t size = static_cast<int64_t>(param.labels.size());
    d += param.ordered && size > 1 ? std::abs(levels[p] - other[p]) / double(size - 1) : 1.0;
  }
  return d;
}

int64_t nearest_free_config(const SearchSpace& space, const std::vector<int32_t>& levels,
                            const std::vector<uint8_t>& taken, int64_t start) {
  int64_t best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int64_t k = 0; k < space.count; ++k) {
    const int64_t j = (start + k) % space.count;
    if (taken[j]) continue;
    const double d = level_distance(space, levels.data(), j);
    if (d < best_distance) {
      best_distance = d;
      best = j;
      if (d == 0.0) break;
    }
  }
  return best;
}

GeneticStrategy::GeneticStrategy(GeneticOptions options) : options_(options) {
  check_data(options_.population >= 2, "tune", "--population", "must be at least 2");
  check_data(options_.tournament >= 1, "tune", "--tournament", "must be at least 1");
  check_data(options_.mutation <= 1.0, "tune", "--mutation", "must be at most 1 (< 0: automatic)");
}

void GeneticStrategy::reset(const SearchSpace& space, uint64_t seed) {
  rng_ = random_stream(seed, 2);
  fitness_.assign(space.count, std::numeric_limits<double>::infinity());
  absorbed_ = 0;
  population_.clear();
  children_.clear();
  next_child_ = 0;
}

void GeneticStrategy::absorb(const History& history) {
  for (; absorbed_ < history.size(); ++absorbed_) {
    const Measurement& m = history.measurements[absorbed_];
    if (!m.failed) fitness_[m.config] = m.time;
  }
}

int64_t GeneticStrategy::select_parent() {
  int64_t best = population_[rng_.below(population_.size())];
  for (int64_t t = 1; t < options_.tournament; ++t) {
    const int64_t other = population_[rng_.below(population_.size())];
    if (fitness_[other] < fitness_[best]) best = other;
  }
  return best;
}

void GeneticStrategy::next_generation(const SearchSpace& space, const History& history) {
  const int64_t size = options_.population;
  // Taken: measured, or already a child of this generation (never propose twice).
  std::vector<uint8_t> taken = history.measured;
  std::vector<int64_t> children;
  if (population_.empty() && children_.empty()) {
    // The first generation is a random sample of the space.
    std::vector<int64_t> free;
    for (int64_t j = 0; j < space.count; ++j) {
      if (!taken[j]) free.push_back(j);
    }
    for (int64_t k = 0; k < size && k < static_cast<int64_t>(free.size()); ++k) {
      std::swap(free[k], free[k + rng_.below(free.size() - k)]);
      children.push_back(free[k]);
    }
  } else {
    // (mu + lambda) survival: the fastest `size` of the old population and its children.
    std::vector<int64_t> pool = population_;
    pool.insert(pool.end(), children_.begin(), children_.end());
    std::stable_sort(pool.begin(), pool.end(),
                     [&](int64_t a, int64_t b) { return fitness_[a] < fitness_[b]; });
    pool.resize(std::min<size_t>(pool.size(), size));
    population_ = pool;
    const int64_t parameters = space.parameter_count();
    const double mutation = options_.mutation >= 0 ? options_.mutation : 1.0 / std::max<int64_t>(1, parameters);
    std::vector<int32_t> genes(parameters);
    for (int64_t k = 0; k < size; ++k) {
      const int32_t* a = space.config_levels(select_parent());
      const int32_t* b = space.config_levels(select_parent());
      for (int64_t p = 0; p < parameters; ++p) {
        genes[p] = rng_.uniform() < 0.5 ? a[p] : b[p];
        if (rng_.uniform() < mutation) {
          genes[p] = static_cast<int32_t>(rng_.below(space.parameters[p].labels.size()));
        }
      }
      const int64_t j =
          nearest_free_config(space, genes, taken, static_cast<int64_t>(rng_.below(space.count)));
      if (j < 0) break;
      taken[j] = 1;
      children.push_back(j);
    }
  }
  children_ = std::move(children);
  next_child_ = 0;
}

std::vector<int64_t> GeneticStrategy::propose(const SearchSpace& space, const History& history,
                                              int64_t count) {
  absorb(history);
  std::vector<int64_t> out;
  while (static_cast<int64_t>(out.size()) < count) {
    if (next_child_ == children_.size()) {
      // Breeding needs the times of the whole generation: end the batch short instead.
      if (!out.empty()) break;
      if (population_.empty() && !children_.empty()) {
        population_ = children_;  // the random first generation becomes the population
        children_.clear();
      }
      next_generation(space, history);
      if (children_.empty()) break;
    }
    const int64_t j = children_[next_child_++];
    if (!history.is_measured(j)) out.push_back(j);
  }
  return out;
}

}  // namespace graphcost::tune
