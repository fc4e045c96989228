#include "tune/reach.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace graphcost::tune {

int64_t measurements_to_reach(const std::vector<double>& best_so_far, double target) {
  for (size_t k = 0; k < best_so_far.size(); ++k) {
    if (best_so_far[k] <= target) return static_cast<int64_t>(k + 1);
  }
  return -1;
}

ReachSummary summarize_reach(const std::vector<std::vector<double>>& curves, double optimum,
                             double within, int64_t budget) {
  ReachSummary s;
  s.within = within;
  s.seeds = static_cast<int64_t>(curves.size());
  // A relative tolerance keeps "within 0%" from failing on a time printed and re-read.
  const double target = optimum * (1.0 + within) * (1.0 + 1e-12);
  double total = 0.0;
  for (const std::vector<double>& curve : curves) {
    const int64_t n = measurements_to_reach(curve, target);
    s.per_seed.push_back(n);
    if (n > 0) {
      ++s.seeds_reached;
      total += static_cast<double>(n);
    }
  }
  s.mean = s.seeds_reached > 0 ? total / static_cast<double>(s.seeds_reached)
                               : std::numeric_limits<double>::quiet_NaN();
  if (budget <= 0) {
    for (const std::vector<double>& curve : curves)
      budget = std::max<int64_t>(budget, static_cast<int64_t>(curve.size()));
  }
  std::vector<double> counted;
  for (int64_t n : s.per_seed) counted.push_back(n > 0 ? static_cast<double>(n) : budget + 1.0);
  std::sort(counted.begin(), counted.end());
  const size_t m = counted.size();
  double sum = 0.0;
  for (double c : counted) sum += c;
  s.mean_with_misses = m > 0 ? sum / m : std::numeric_limits<double>::quiet_NaN();
  s.median_with_misses = m == 0   ? std::numeric_limits<double>::quiet_NaN()
                         : m % 2 ? counted[m / 2]
                                 : 0.5 * (counted[m / 2 - 1] + counted[m / 2]);
  return s;
}

std::vector<double> mean_curve(const std::vector<std::vector<double>>& curves) {
  size_t longest = 0;
  for (const auto& c : curves) longest = std::max(longest, c.size());
  std::vector<double> mean(longest, std::numeric_limits<double>::quiet_NaN());
  for (size_t k = 0; k < longest; ++k) {
    double total = 0.0;
    int64_t count = 0;
    for (const auto& c : curves) {
      if (c.empty()) continue;
      const double v = c[std::min(k, c.size() - 1)];
      if (std::isfinite(v)) {
        total += v;
        ++count;
      }
    }
    if (count > 0) mean[k] = total / static_cast<double>(count);
  }
  return mean;
}

}  // namespace graphcost::tune
