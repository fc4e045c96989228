#include "stack/folds.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/random.h"
#include "eval/metrics.h"

namespace graphcost::stack {

std::vector<int64_t> graph_folds(int64_t graphs, int64_t folds, uint64_t seed) {
  check_data(graphs >= 2, "stack", "graphs",
             "cross-fitting needs at least 2 graphs with runtimes, got " + std::to_string(graphs));
  check_data(folds >= 2 && folds <= graphs, "stack", "--folds",
             "must be in [2, " + std::to_string(graphs) + "] (the graphs), got " +
                 std::to_string(folds));
  std::vector<int64_t> order(static_cast<size_t>(graphs));
  std::iota(order.begin(), order.end(), 0);
  Random random(seed);
  random.shuffle(order);
  std::vector<int64_t> fold(static_cast<size_t>(graphs));
  for (int64_t i = 0; i < graphs; ++i) fold[order[i]] = i % folds;
  return fold;
}

std::vector<double> cross_fit(const std::vector<std::vector<double>>& measured,
                              const std::vector<int64_t>& folds, size_t candidates,
                              const FitAndScore& fit_and_score) {
  const int64_t fold_count = *std::max_element(folds.begin(), folds.end()) + 1;
  std::vector<double> mean_tau(candidates);
  for (size_t c = 0; c < candidates; ++c) {
    double sum = 0;
    int64_t counted = 0;
    for (int64_t f = 0; f < fold_count; ++f) {
      std::vector<int64_t> fit, held;
      for (size_t g = 0; g < folds.size(); ++g)
        (folds[g] == f ? held : fit).push_back(static_cast<int64_t>(g));
      const std::vector<std::vector<double>> scores = fit_and_score(c, fit, held);
      for (size_t i = 0; i < held.size(); ++i) {
        const double tau = eval::kendall_tau(scores[i], measured[held[i]]);
        if (std::isnan(tau)) continue;
        sum += tau;
        ++counted;
      }
    }
    mean_tau[c] = counted > 0 ? sum / counted : std::nan("");
  }
  return mean_tau;
}

}  // namespace graphcost::stack
