// A small seeded generator with portable distributions: the same stream on every standard
// library and thread count (std:: distributions differ between implementations).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace graphcost {

// The SplitMix64 output function (Steele, Lea and Flood 2014).
inline uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// SplitMix64: small, fast, seedable, the same output on every platform.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() { return splitmix64_mix(state_ += 0x9E3779B97F4A7C15ull); }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n), n > 0: rejects the top partial copy of [0, n), so no modulo bias.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = next();
    while (x >= limit);
    return x % n;
  }
  // Fisher-Yates shuffle.
  template <typename T>
  void shuffle(std::vector<T>& values) {
    for (size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[below(i)]);
  }
  uint64_t state() const { return state_; }
  void set_state(uint64_t state) { state_ = state; }

 private:
  uint64_t state_;
};

// A generator for stream `stream` of seed: independent streams for batches, validation samples.
inline Random random_stream(uint64_t seed, uint64_t stream) {
  return Random(splitmix64_mix(splitmix64_mix(seed) + stream));
}

}  // namespace graphcost
