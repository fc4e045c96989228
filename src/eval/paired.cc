#include "eval/paired.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "core/error.h"

namespace graphcost::eval {

PairedComparison compare_paired(const std::vector<double>& base, const std::vector<double>& other) {
  check_data(base.size() == other.size(), "paired comparison", "units",
             std::to_string(base.size()) + " against " + std::to_string(other.size()));
  std::vector<double> differences;
  PairedComparison result;
  for (size_t i = 0; i < base.size(); ++i) {
    if (std::isnan(base[i]) || std::isnan(other[i])) continue;
    differences.push_back(other[i] - base[i]);
    result.wins += other[i] > base[i];
    result.losses += other[i] < base[i];
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  result.units = static_cast<int64_t>(differences.size());
  const double n = static_cast<double>(differences.size());
  result.mean_difference =
      differences.empty() ? nan : std::accumulate(differences.begin(), differences.end(), 0.0) / n;
  result.standard_error = nan;
  result.interval_low = result.interval_high = nan;
  if (differences.size() >= 2) {
    double squares = 0;
    for (double d : differences)
      squares += (d - result.mean_difference) * (d - result.mean_difference);
    result.standard_error = std::sqrt(squares / (n - 1)) / std::sqrt(n);
    const double half = student_t_975(result.units - 1) * result.standard_error;
    result.interval_low = result.mean_difference - half;
    result.interval_high = result.mean_difference + half;
  }
  return result;
}

double student_t_975(int64_t degrees) {
  check_data(degrees >= 1, "t interval", "degrees of freedom",
             std::to_string(degrees) + " (need at least 2 paired units)");
  return boost::math::quantile(boost::math::students_t(static_cast<double>(degrees)), 0.975);
}

std::vector<std::vector<int64_t>> random_groups(int64_t count, int64_t groups, uint64_t seed) {
  check_data(groups >= 1 && groups <= count, "grouping", "groups",
             std::to_string(groups) + " groups of " + std::to_string(count) +
                 " configurations (need 1 to " + std::to_string(count) + ")");
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(seed);
  std::shuffle(order.begin(), order.end(), random);
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(groups));
  for (int64_t i = 0; i < count; ++i) out[i % groups].push_back(order[i]);
  for (auto& group : out) std::sort(group.begin(), group.end());
  return out;
}

}  // namespace graphcost::eval
