// Folds of graphs and cross-fitting: a graph is judged only by fits that never saw it.
#include "stack/folds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.h"

namespace graphcost::stack {
namespace {

TEST(GraphFolds, EveryGraphInOneFoldOfNearlyEqualSizes) {
  const std::vector<int64_t> folds = graph_folds(7, 3, 11);
  ASSERT_EQ(folds.size(), 7u);
  std::vector<int64_t> sizes(3, 0);
  for (int64_t f : folds) {
    ASSERT_GE(f, 0);
    ASSERT_LT(f, 3);
    ++sizes[f];
  }
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(graph_folds(7, 3, 11), folds);  // seeded
  EXPECT_NE(graph_folds(7, 3, 12), folds);  // (these two seeds deal differently)
}

TEST(GraphFolds, TooFewGraphsOrBadFoldCountsAreErrors) {
  EXPECT_THROW(graph_folds(1, 2, 0), Error);
  EXPECT_THROW(graph_folds(5, 1, 0), Error);
  EXPECT_THROW(graph_folds(5, 6, 0), Error);
  try {
    graph_folds(1, 2, 0);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "stack: graphs: cross-fitting needs at least 2 graphs with runtimes, got 1");
  }
}

// Six graphs, measured 1..5 each; a "model" that scores the graphs it was fitted on perfectly
// (it memorised them) and the others in reverse.
std::vector<std::vector<double>> six_graphs() {
  return std::vector<std::vector<double>>(6, {1, 2, 3, 4, 5});
}

TEST(CrossFit, FoldsNeverHoldAGraphTheirFitSaw) {
  const auto measured = six_graphs();
  const std::vector<int64_t> folds = graph_folds(6, 3, 4);
  std::vector<std::vector<int64_t>> held_per_candidate(2);
  const std::vector<double> taus = cross_fit(
      measured, folds, 2,
      [&](size_t c, const std::vector<int64_t>& fit, const std::vector<int64_t>& held) {
        const std::set<int64_t> seen(fit.begin(), fit.end());
        EXPECT_EQ(fit.size() + held.size(), 6u);
        std::vector<std::vector<double>> scores;
        for (int64_t g : held) {
          EXPECT_EQ(seen.count(g), 0u) << "graph " << g << " held out from a fit that saw it";
          held_per_candidate[c].push_back(g);
          scores.push_back(seen.count(g) ? measured[g] : std::vector<double>{5, 4, 3, 2, 1});
        }
        return scores;
      });
  // A leak would show as tau +1 (the memorised order); out of fold every graph is reversed.
  ASSERT_EQ(taus.size(), 2u);
  for (double tau : taus) EXPECT_NEAR(tau, -1.0, 1e-12);
  for (auto& held : held_per_candidate) {
    std::sort(held.begin(), held.end());
    EXPECT_EQ(held, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));  // each graph judged once
  }
}

TEST(CrossFit, MeanTauLeavesOutUndefinedGraphs) {
  std::vector<std::vector<double>> measured = {{1, 2, 3}, {2, 2, 2}, {3, 2, 1}};
  const std::vector<double> taus = cross_fit(
      measured, {0, 1, 0}, 1,
      [](size_t, const std::vector<int64_t>&, const std::vector<int64_t>& held) {
        return std::vector<std::vector<double>>(held.size(), std::vector<double>{1, 2, 3});
      });
  // Graph 1 is constant (tau undefined); graphs 0 and 2 give +1 and -1.
  EXPECT_EQ(taus, (std::vector<double>{0.0}));
}

}  // namespace
}  // namespace graphcost::stack
