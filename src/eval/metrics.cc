#include "eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "core/error.h"

namespace graphcost::eval {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_same_size(const std::vector<double>& predicted, const std::vector<double>& measured,
                     const char* metric) {
  check_data(predicted.size() == measured.size(), metric, "",
             "predicted has " + std::to_string(predicted.size()) + " values but measured has " +
                 std::to_string(measured.size()));
}

bool any_nan(const std::vector<double>& values) {
  return std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
}

// Pairs within runs of equal values of a sorted sequence, as sum of run*(run-1)/2.
template <typename Equal>
int64_t tied_pairs_in_runs(int64_t count, Equal equal) {
  int64_t tied = 0;
  int64_t run = 1;
  for (int64_t i = 1; i < count; ++i) {
    if (equal(i - 1, i)) {
      ++run;
    } else {
      tied += run * (run - 1) / 2;
      run = 1;
    }
  }
  return tied + run * (run - 1) / 2;
}

// Stable bottom-up merge sort of values, returning the number of inversions (pairs i < j with
// values[i] > values[j]); equal values are not inversions.
int64_t sort_counting_inversions(std::vector<double>& values) {
  const size_t n = values.size();
  std::vector<double> buffer(n);
  int64_t inversions = 0;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t left = 0; left < n; left += 2 * width) {
      size_t middle = std::min(left + width, n);
      size_t right = std::min(left + 2 * width, n);
      size_t i = left, j = middle, out = left;
      while (i < middle && j < right) {
        if (values[i] <= values[j]) {
          buffer[out++] = values[i++];
        } else {
          // values[j] jumps ahead of every remaining element of the left run.
          inversions += static_cast<int64_t>(middle - i);
          buffer[out++] = values[j++];
        }
      }
      while (i < middle) buffer[out++] = values[i++];
      while (j < right) buffer[out++] = values[j++];
    }
    values.swap(buffer);
  }
  return inversions;
}

int sign(double v) { return (v > 0) - (v < 0); }

// Orders costs ascending with NaN last, so a broken score ranks as the slowest.
bool faster(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

}  // namespace

PairCounts count_pairs(const std::vector<double>& predicted, const std::vector<double>& measured) {
  check_same_size(predicted, measured, "count_pairs");
  check_data(!any_nan(predicted) && !any_nan(measured), "count_pairs", "",
             "scores or runtimes contain NaN");
  const int64_t c = static_cast<int64_t>(predicted.size());
  PairCounts counts;
  counts.pairs = c * (c - 1) / 2;
  if (c < 2) return counts;

  // Sorting the (predicted, measured) pairs themselves keeps the sort cache-friendly.
  std::vector<std::pair<double, double>> sorted(c);
  for (int64_t i = 0; i < c; ++i) sorted[i] = {predicted[i], measured[i]};
  std::sort(sorted.begin(), sorted.end());
  counts.tied_predicted = tied_pairs_in_runs(
      c, [&](int64_t i, int64_t j) { return sorted[i].first == sorted[j].first; });
  counts.tied_both =
      tied_pairs_in_runs(c, [&](int64_t i, int64_t j) { return sorted[i] == sorted[j]; });

  // Within a predicted tie measured is already ascending, so only pairs strictly ordered on both
  // sides can be inversions: the inversions are exactly the discordant pairs.
  std::vector<double> measured_sequence(c);
  for (int64_t i = 0; i < c; ++i) measured_sequence[i] = sorted[i].second;
  counts.discordant = sort_counting_inversions(measured_sequence);
  counts.tied_measured = tied_pairs_in_runs(
      c, [&](int64_t i, int64_t j) { return measured_sequence[i] == measured_sequence[j]; });
  return counts;
}

double kendall_tau(const std::vector<double>& predicted, const std::vector<double>& measured) {
  check_same_size(predicted, measured, "kendall_tau");
  if (predicted.size() < 2 || any_nan(predicted) || any_nan(measured)) return kNaN;
  PairCounts counts = count_pairs(predicted, measured);
  const int64_t untied_predicted = counts.pairs - counts.tied_predicted;
  const int64_t untied_measured = counts.pairs - counts.tied_measured;
  if (untied_predicted == 0 || untied_measured == 0) return kNaN;
  // tau_b = (n0 - n1 - n2 + n3 - 2 * discordant) / sqrt((n0 - n1) * (n0 - n2)).
  const double numerator = static_cast<double>(counts.concordant() - counts.discordant);
  const double tau = numerator / std::sqrt(static_cast<double>(untied_predicted)) /
                     std::sqrt(static_cast<double>(untied_measured));
  return std::clamp(tau, -1.0, 1.0);
}

double kendall_tau_naive(const std::vector<double>& predicted,
                         const std::vector<double>& measured) {
  check_same_size(predicted, measured, "kendall_tau_naive");
  const size_t c = predicted.size();
  if (c < 2 || any_nan(predicted) || any_nan(measured)) return kNaN;
  int64_t concordant_minus_discordant = 0, untied_predicted = 0, untied_measured = 0;
  for (size_t i = 0; i < c; ++i) {
    for (size_t j = i + 1; j < c; ++j) {
      int sp = sign(predicted[i] - predicted[j]);
      int sm = sign(measured[i] - measured[j]);
      concordant_minus_discordant += sp * sm;
      untied_predicted += sp != 0;
      untied_measured += sm != 0;
    }
  }
  if (untied_predicted == 0 || untied_measured == 0) return kNaN;
  return static_cast<double>(concordant_minus_discordant) /
         std::sqrt(static_cast<double>(untied_predicted) * static_cast<double>(untied_measured));
}

double ordered_pair_accuracy(const std::vector<double>& predicted,
                             const std::vector<double>& measured) {
  check_same_size(predicted, measured, "ordered_pair_accuracy");
  if (any_nan(predicted) || any_nan(measured)) return kNaN;
  PairCounts counts = count_pairs(predicted, measured);
  const int64_t ordered = counts.pairs - counts.tied_measured;
  if (ordered == 0) return kNaN;
  return static_cast<double>(counts.concordant()) / static_cast<double>(ordered);
}

double ordered_pair_accuracy_naive(const std::vector<double>& predicted,
                                   const std::vector<double>& measured) {
  check_same_size(predicted, measured, "ordered_pair_accuracy_naive");
  const size_t c = predicted.size();
  int64_t ordered = 0, correct = 0;
  for (size_t i = 0; i < c; ++i) {
    for (size_t j = 0; j < c; ++j) {
      if (measured[i] > measured[j]) {
        ++ordered;
        correct += predicted[i] > predicted[j];
      }
    }
  }
  if (ordered == 0) return kNaN;
  return static_cast<double>(correct) / static_cast<double>(ordered);
}

namespace {

// best_pred / best over the k configurations ranked fastest (k capped at c).
double best_predicted_ratio(const std::vector<double>& predicted,
                            const std::vector<double>& measured, int64_t k, const char* metric) {
  check_same_size(predicted, measured, metric);
  check_data(k >= 1, metric, "k", "must be at least 1, got " + std::to_string(k));
  const int64_t c = static_cast<int64_t>(predicted.size());
  if (c == 0 || any_nan(measured)) return kNaN;
  k = std::min(k, c);
  // The same order as rank_fastest_first (ties by index), without sorting all c.
  std::vector<int64_t> order(c);
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
    if (faster(predicted[a], predicted[b])) return true;
    if (faster(predicted[b], predicted[a])) return false;
    return a < b;
  });
  double best_predicted = measured[order[0]];
  for (int64_t i = 1; i < k; ++i) best_predicted = std::min(best_predicted, measured[order[i]]);
  const double best = *std::min_element(measured.begin(), measured.end());
  return best_predicted / best;
}

}  // namespace

double top_k_error(const std::vector<double>& predicted, const std::vector<double>& measured,
                   int64_t k) {
  return best_predicted_ratio(predicted, measured, k, "top_k_error") - 1.0;
}

double tile_score(const std::vector<double>& predicted, const std::vector<double>& measured) {
  return 2.0 - best_predicted_ratio(predicted, measured, 5, "tile_score");
}

std::vector<int64_t> rank_fastest_first(const std::vector<double>& predicted) {
  std::vector<int64_t> order(predicted.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return faster(predicted[a], predicted[b]); });
  return order;
}

}  // namespace graphcost::eval
