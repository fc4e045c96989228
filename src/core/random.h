// A small seeded generator with portable distributions: the same stream on every standard
// library and thread count (std:: distributions differ between implementations).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace graphcost {

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  // SplitMix64 (Steele, Lea, Flood 2014).
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, negligible bias for n << 2^64).
  uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<__uint128_t>(next()) * n) >> 64); }
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

}  // namespace graphcost
