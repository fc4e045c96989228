#include "eval/ensemble.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace graphcost::eval {

void check_ensemble_method(const std::string& method) {
  if (method != "mean" && method != "rank")
    throw Error("ensemble", method, "unknown combination method (valid: mean, rank)");
}

std::vector<double> standardise(const std::vector<double>& scores) {
  const double n = static_cast<double>(scores.size());
  std::vector<double> out(scores.size(), 0.0);
  if (scores.empty()) return out;
  const double mean = std::accumulate(scores.begin(), scores.end(), 0.0) / n;
  double squares = 0;
  for (double s : scores) squares += (s - mean) * (s - mean);
  const double std = std::sqrt(squares / n);
  if (!(std > 0)) return out;
  for (size_t i = 0; i < scores.size(); ++i) out[i] = (scores[i] - mean) / std;
  return out;
}

std::vector<double> ascending_ranks(const std::vector<double>& scores) {
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  std::vector<double> ranks(scores.size());
  for (size_t begin = 0; begin < order.size();) {
    size_t end = begin + 1;
    while (end < order.size() && scores[order[end]] == scores[order[begin]]) ++end;
    // Positions begin..end-1 hold equal scores: each gets the mean of ranks begin+1..end.
    const double shared = (static_cast<double>(begin + 1) + static_cast<double>(end)) / 2;
    for (size_t k = begin; k < end; ++k) ranks[order[k]] = shared;
    begin = end;
  }
  return ranks;
}

std::vector<double> combine_scores(const std::vector<std::vector<double>>& per_model,
                                   const std::string& method) {
  check_ensemble_method(method);
  check_data(!per_model.empty(), "ensemble", "models", "no scores to combine");
  const size_t n = per_model[0].size();
  for (const auto& scores : per_model)
    check_data(scores.size() == n, "ensemble", "scores",
               "models scored different numbers of configurations (" + std::to_string(n) + " vs " +
                   std::to_string(scores.size()) + ")");
  if (per_model.size() == 1) return per_model[0];
  std::vector<double> combined(n, 0.0);
  for (const auto& scores : per_model) {
    if (method == "mean") {
      const std::vector<double> z = standardise(scores);
      for (size_t i = 0; i < n; ++i) combined[i] += z[i];
    } else {
      const std::vector<double> r = ascending_ranks(scores);
      for (size_t i = 0; i < n; ++i) combined[i] -= 1.0 / r[i];
    }
  }
  for (double& c : combined) c /= static_cast<double>(per_model.size());
  return combined;
}

}  // namespace graphcost::eval
