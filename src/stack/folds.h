// Folds of graphs for cross-fitting a meta-learner: a graph's configurations always stay
// together (ranking is per graph), and every candidate setting is judged only on graphs that its
// fit did not see.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace graphcost::stack {

// The fold (0 .. folds-1) of each of `graphs` graphs: a seeded shuffle dealt round-robin, so fold
// sizes differ by at most one. Needs 2 <= folds <= graphs (an Error otherwise).
std::vector<int64_t> graph_folds(int64_t graphs, int64_t folds, uint64_t seed);

// Fits on the graphs `fit` and returns one score vector per graph of `held` (costs: lower is
// faster). `candidate` indexes the settings being compared.
using FitAndScore = std::function<std::vector<std::vector<double>>(
    size_t candidate, const std::vector<int64_t>& fit, const std::vector<int64_t>& held)>;

// Cross-fitting: for every candidate and fold, fit on the other folds' graphs and score the
// fold's graphs. Returns per candidate the mean Kendall tau over the graphs (each scored once, by
// the fit that did not see it; NaN taus, from constant runtimes, are left out of the mean).
// measured[g] is graph g's runtimes.
std::vector<double> cross_fit(const std::vector<std::vector<double>>& measured,
                              const std::vector<int64_t>& folds, size_t candidates,
                              const FitAndScore& fit_and_score);

}  // namespace graphcost::stack
