#include "eval/repeats.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "data/dedup.h"
#include "eval/metrics.h"

namespace graphcost::eval {

RepeatPairs RepeatPairs::select(const std::vector<int64_t>& positions) const {
  RepeatPairs out;
  for (int64_t p : positions) {
    out.first_record.push_back(first_record[p]);
    out.second_record.push_back(second_record[p]);
    out.first.push_back(first[p]);
    out.second.push_back(second[p]);
  }
  return out;
}

RepeatPairs repeat_pairs(const data::ConfigView& configs, int64_t min_gap, int64_t max_gap) {
  check_data(configs.has_runtimes(), "repeats", "config_runtime",
             "no measured runtimes to compare");
  check_data(min_gap >= 1, "repeats", "min_gap", "must be at least 1");
  check_data(max_gap >= min_gap, "repeats", "max_gap", "must be at least min_gap");
  const std::vector<int64_t> identical = data::first_identical_config(configs);
  // Per configuration (by its first record): its first successful record, then the partner.
  std::vector<int64_t> first(configs.count, -1), second(configs.count, -1);
  for (int64_t j = 0; j < configs.count; ++j) {
    if (configs.failed != nullptr && configs.failed[j] != 0) continue;
    const int64_t key = identical[j];
    if (first[key] < 0) {
      first[key] = j;
    } else if (second[key] < 0 && j - first[key] >= min_gap) {
      second[key] = j;
    }
  }
  RepeatPairs pairs;
  for (int64_t key = 0; key < configs.count; ++key) {
    if (second[key] < 0 || second[key] - first[key] > max_gap) continue;
    pairs.first_record.push_back(first[key]);
    pairs.second_record.push_back(second[key]);
    pairs.first.push_back(configs.runtimes[first[key]]);
    pairs.second.push_back(configs.runtimes[second[key]]);
  }
  // Keyed by the first identical record, which need not be the first successful one.
  std::vector<int64_t> order(pairs.first.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return pairs.first_record[a] < pairs.first_record[b]; });
  return pairs.select(order);
}

std::vector<int64_t> fast_pairs(const RepeatPairs& pairs, double fastest, double ratio) {
  std::vector<int64_t> fast;
  for (int64_t i = 0; i < pairs.size(); ++i) {
    if (std::max(pairs.first[i], pairs.second[i]) < ratio * fastest) fast.push_back(i);
  }
  return fast;
}

double oracle_tau_bound(double repeat_tau) {
  return repeat_tau > 0 ? std::sqrt(repeat_tau) : std::numeric_limits<double>::quiet_NaN();
}

Agreement agreement(const RepeatPairs& pairs) {
  Agreement a;
  a.count = pairs.size();
  if (a.count == 0) return a;
  std::vector<double> relative;
  for (int64_t i = 0; i < a.count; ++i) {
    const double low = std::min(pairs.first[i], pairs.second[i]);
    relative.push_back(std::abs(pairs.first[i] - pairs.second[i]) / low);
  }
  std::sort(relative.begin(), relative.end());
  const size_t m = relative.size() / 2;
  a.median_relative_difference =
      relative.size() % 2 == 1 ? relative[m] : (relative[m - 1] + relative[m]) / 2;
  a.tau = kendall_tau(pairs.first, pairs.second);
  a.bound = oracle_tau_bound(a.tau);
  return a;
}

}  // namespace graphcost::eval
