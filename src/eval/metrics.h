// The field's ranking metrics, exactly as in shared/docs/metrics.md. Scores are predicted costs:
// lower means faster, so a perfect model has Kendall tau +1 against the measured runtimes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphcost::eval {

// Kendall tau-b between predicted and measured (scipy.stats.kendalltau's default), O(c log c).
// Returns NaN when undefined (fewer than 2 items, or either side constant).
double kendall_tau(const std::vector<double>& predicted, const std::vector<double>& measured);
// The O(c^2) definition, as a test oracle.
double kendall_tau_naive(const std::vector<double>& predicted, const std::vector<double>& measured);
// Ordered pair accuracy: among pairs with measured_i > measured_j, the share with
// predicted_i > predicted_j. NaN when there is no such pair.
double ordered_pair_accuracy(const std::vector<double>& predicted,
                             const std::vector<double>& measured);
// Top-K error: best measured runtime among the K lowest predicted, over the best overall, minus 1.
double top_k_error(const std::vector<double>& predicted, const std::vector<double>& measured,
                   int64_t k);
// Kaggle tile score for one kernel: 2 - best_pred / best with K = 5.
double tile_score(const std::vector<double>& predicted, const std::vector<double>& measured);
// Configuration indices sorted fastest first by predicted cost (stable on ties).
std::vector<int64_t> rank_fastest_first(const std::vector<double>& predicted);

// Pair counts behind tau-b and OPA, over the c*(c-1)/2 unordered pairs.
struct PairCounts {
  int64_t pairs = 0;           // n0
  int64_t tied_predicted = 0;  // n1: pairs with equal predicted
  int64_t tied_measured = 0;   // n2: pairs with equal measured
  int64_t tied_both = 0;       // n3: pairs equal on both sides
  int64_t discordant = 0;      // pairs ordered oppositely (no tie on either side)
  int64_t concordant() const {
    return pairs - tied_predicted - tied_measured + tied_both - discordant;
  }
};
// Counts the pairs in O(c log c) (Knight's algorithm). NaN in either input is an Error.
PairCounts count_pairs(const std::vector<double>& predicted, const std::vector<double>& measured);
// The O(c^2) definition of ordered_pair_accuracy, as a test oracle.
double ordered_pair_accuracy_naive(const std::vector<double>& predicted,
                                   const std::vector<double>& measured);

}  // namespace graphcost::eval
