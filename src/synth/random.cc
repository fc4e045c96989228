#include "synth/random.h"

#include <cmath>

namespace graphcost::synth {

namespace {
uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x = splitmix64(seed);
  x = splitmix64(x ^ a);
  x = splitmix64(x ^ b);
  return splitmix64(x ^ c);
}

double Random::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

int64_t Random::uniform_int(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
  if (range == 0) return static_cast<int64_t>(engine_());  // the full 64-bit range
  // Reject the top partial copy of the range so every value is equally likely.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  uint64_t x;
  do {
    x = engine_();
  } while (x >= limit);
  return lo + static_cast<int64_t>(x % range);
}

double Random::normal() {
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

double Random::log_uniform(double lo, double hi) {
  return std::exp(uniform(std::log(lo), std::log(hi)));
}

}  // namespace graphcost::synth
