// Portable random numbers for the synthetic generator: std::mt19937_64 (whose output the
// standard fixes) with the distributions written out here, because std:: distributions give
// different values on different standard libraries.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace graphcost::synth {

// Mixes a seed with up to three stream ids (SplitMix64 finaliser), so that every file and
// every purpose gets its own stream whatever the thread count or generation order.
uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b = 0, uint64_t c = 0);

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  uint64_t next() { return engine_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [lo, hi] (inclusive), unbiased (rejection sampling).
  int64_t uniform_int(int64_t lo, int64_t hi);
  bool bernoulli(double p) { return uniform() < p; }
  // Standard normal (Box-Muller, one value per call).
  double normal();
  // exp of a uniform in [log lo, log hi]: scale-free sizes.
  double log_uniform(double lo, double hi);
  template <typename T>
  const T& pick(const std::vector<T>& values) {
    return values[static_cast<size_t>(uniform_int(0, static_cast<int64_t>(values.size()) - 1))];
  }
  // Fisher-Yates shuffle.
  template <typename T>
  void shuffle(std::vector<T>& values) {
    for (int64_t i = static_cast<int64_t>(values.size()) - 1; i > 0; --i) {
      std::swap(values[i], values[uniform_int(0, i)]);
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace graphcost::synth
