// Times kendall_tau on c = 100,000 random configurations (the largest layout graphs), the
// O(c log c) path every validation pass runs per graph.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "eval/metrics.h"

int main() {
  constexpr size_t kCount = 100000;
  constexpr int kRepeats = 7;
  std::mt19937_64 rng(2023);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> measured(kCount), predicted(kCount);
  for (size_t i = 0; i < kCount; ++i) {
    measured[i] = noise(rng);
    predicted[i] = measured[i] + noise(rng);  // a correlated model, like a trained one
  }
  std::vector<double> times_ms;
  double tau = 0.0;
  for (int r = 0; r < kRepeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    tau = graphcost::eval::kendall_tau(predicted, measured);
    auto stop = std::chrono::steady_clock::now();
    times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::sort(times_ms.begin(), times_ms.end());
  std::printf("kendall_tau on %zu configurations: tau %.6f, median of %d runs\n", kCount, tau,
              kRepeats);
  std::printf("figure: kendall_tau_1e5_ms: %.3f ms\n", times_ms[kRepeats / 2]);
  return 0;
}
