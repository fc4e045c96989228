#include "eval/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/error.h"

namespace graphcost::eval {
namespace {

TEST(KendallTau, PerfectAndReversedOrders) {
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
  EXPECT_DOUBLE_EQ(kendall_tau_naive({1, 2, 3, 4}, {40, 30, 20, 10}), -1.0);
}

TEST(KendallTau, TiesOnBothSidesGiveTauB) {
  // predicted {1,2,2,3,3}, measured {2,1,1,3,2}: of the 10 pairs, 5 concordant, 2 discordant
  // ((0,1),(0,2)), ties in predicted (1,2),(3,4), ties in measured (0,4),(1,2), joint (1,2).
  // tau_b = (10 - 2 - 2 + 1 - 2*2) / sqrt((10-2)(10-2)) = 3/8.
  const std::vector<double> predicted = {1, 2, 2, 3, 3}, measured = {2, 1, 1, 3, 2};
  EXPECT_DOUBLE_EQ(kendall_tau(predicted, measured), 0.375);
  EXPECT_DOUBLE_EQ(kendall_tau_naive(predicted, measured), 0.375);
  PairCounts counts = count_pairs(predicted, measured);
  EXPECT_EQ(counts.pairs, 10);
  EXPECT_EQ(counts.tied_predicted, 2);
  EXPECT_EQ(counts.tied_measured, 2);
  EXPECT_EQ(counts.tied_both, 1);
  EXPECT_EQ(counts.discordant, 2);
  EXPECT_EQ(counts.concordant(), 5);
  // One tie per side, no joint tie: 4 / sqrt(5 * 5).
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 2, 3}, {1, 1, 2, 3}), 0.8);
}

TEST(KendallTau, UndefinedCasesAreNaN) {
  EXPECT_TRUE(std::isnan(kendall_tau({}, {})));
  EXPECT_TRUE(std::isnan(kendall_tau({1}, {2})));
  EXPECT_TRUE(std::isnan(kendall_tau({1, 2, 3}, {5, 5, 5})));
  EXPECT_TRUE(std::isnan(kendall_tau({7, 7, 7}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(kendall_tau_naive({7, 7, 7}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(kendall_tau({1, NAN, 3}, {1, 2, 3})));
  EXPECT_THROW(kendall_tau({1, 2}, {1, 2, 3}), Error);
  EXPECT_THROW(count_pairs({1, NAN}, {1, 2}), Error);
}

TEST(KendallTau, PairCountsBeyond32Bits) {
  // c = 100,000 gives n0 = 4,999,950,000 pairs; measured floor(i/2) ties 50,000 of them and
  // orders the rest like predicted, so tau_b = (n0 - n2) / sqrt(n0 (n0 - n2)).
  const int64_t c = 100000;
  std::vector<double> predicted(c), measured(c);
  for (int64_t i = 0; i < c; ++i) {
    predicted[i] = static_cast<double>(i);
    measured[i] = static_cast<double>(i / 2);
  }
  const double n0 = 4999950000.0, n2 = 50000.0;
  EXPECT_NEAR(kendall_tau(predicted, measured), std::sqrt((n0 - n2) / n0), 1e-15);
  std::reverse(measured.begin(), measured.end());
  EXPECT_NEAR(kendall_tau(predicted, measured), -std::sqrt((n0 - n2) / n0), 1e-15);
  EXPECT_EQ(count_pairs(predicted, measured).discordant, 4999950000 - 50000);
}

// Values from a small alphabet so that most inputs have ties on both sides.
std::vector<double> random_values(std::mt19937_64& rng, size_t size, int alphabet) {
  std::uniform_int_distribution<int> pick(0, alphabet - 1);
  std::vector<double> values(size);
  for (double& v : values) v = 0.5 * pick(rng);
  return values;
}

TEST(KendallTau, FastMatchesNaiveOnRandomInputsWithTies) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<size_t> size_of(2, 200);
  std::uniform_int_distribution<int> alphabet_of(1, 12);
  int defined = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const size_t size = size_of(rng);
    // Every tenth case without ties on one side, to cover large distinct ranges too.
    const int predicted_alphabet = trial % 10 == 0 ? 1000000 : alphabet_of(rng);
    std::vector<double> predicted = random_values(rng, size, predicted_alphabet);
    std::vector<double> measured = random_values(rng, size, alphabet_of(rng));
    const double fast = kendall_tau(predicted, measured);
    const double naive = kendall_tau_naive(predicted, measured);
    ASSERT_EQ(std::isnan(fast), std::isnan(naive)) << "trial " << trial;
    if (!std::isnan(fast)) {
      ++defined;
      ASSERT_NEAR(fast, naive, 1e-12) << "trial " << trial << " size " << size;
    }
    const double opa = ordered_pair_accuracy(predicted, measured);
    const double opa_naive = ordered_pair_accuracy_naive(predicted, measured);
    ASSERT_EQ(std::isnan(opa), std::isnan(opa_naive)) << "trial " << trial;
    if (!std::isnan(opa)) {
      ASSERT_NEAR(opa, opa_naive, 1e-12) << "trial " << trial;
    }
  }
  EXPECT_GT(defined, 800);  // the comparison really ran on most cases
}

TEST(OrderedPairAccuracy, HandCases) {
  // Pairs with measured_i > measured_j: (1,0) right, (2,0) right, (1,2) wrong.
  EXPECT_DOUBLE_EQ(ordered_pair_accuracy({1, 2, 3}, {1, 3, 2}), 2.0 / 3.0);
  // A tie in predicted does not order a pair: (1,0) counts as wrong.
  EXPECT_DOUBLE_EQ(ordered_pair_accuracy({1, 1, 2}, {1, 2, 3}), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(ordered_pair_accuracy({1, 2, 3}, {1, 2, 3}), 1.0);
  EXPECT_DOUBLE_EQ(ordered_pair_accuracy({3, 2, 1}, {1, 2, 3}), 0.0);
  EXPECT_TRUE(std::isnan(ordered_pair_accuracy({1, 2}, {4, 4})));
  EXPECT_TRUE(std::isnan(ordered_pair_accuracy({}, {})));
}

TEST(OrderedPairAccuracy, TauAEqualsTwiceOpaMinusOneWithoutTies) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> predicted(30), measured(30);
    std::iota(predicted.begin(), predicted.end(), 0.0);
    std::iota(measured.begin(), measured.end(), 0.0);
    std::shuffle(predicted.begin(), predicted.end(), rng);
    std::shuffle(measured.begin(), measured.end(), rng);
    // Without ties tau-b is tau-a.
    EXPECT_NEAR(kendall_tau(predicted, measured),
                2.0 * ordered_pair_accuracy(predicted, measured) - 1.0, 1e-12);
  }
}

TEST(TopKError, ThreeConfigHandCase) {
  // Ranked fastest first: 1 (runtime 3), 2 (runtime 2), 0 (runtime 1, the best).
  const std::vector<double> predicted = {0.3, 0.1, 0.2}, measured = {1.0, 3.0, 2.0};
  EXPECT_DOUBLE_EQ(top_k_error(predicted, measured, 1), 2.0);
  EXPECT_DOUBLE_EQ(top_k_error(predicted, measured, 2), 1.0);
  EXPECT_DOUBLE_EQ(top_k_error(predicted, measured, 3), 0.0);
  EXPECT_DOUBLE_EQ(top_k_error(predicted, measured, 10), 0.0);  // K capped at c
  EXPECT_THROW(top_k_error(predicted, measured, 0), Error);
  EXPECT_TRUE(std::isnan(top_k_error({}, {}, 5)));
}

TEST(TopKError, PredictedTiesGoToTheLowerIndex) {
  // Both tie at 0; index 0 (runtime 4) comes first, so top-1 misses the best (runtime 2).
  EXPECT_DOUBLE_EQ(top_k_error({0, 0, 1}, {4, 2, 8}, 1), 1.0);
}

TEST(TileScore, TopFiveOfSix) {
  const std::vector<double> predicted = {0, 1, 2, 3, 4, 5};
  // Best (runtime 2) ranked last: the top 5 reach 3, so 2 - 3/2.
  EXPECT_DOUBLE_EQ(tile_score(predicted, {4, 3, 5, 6, 7, 2}), 0.5);
  EXPECT_DOUBLE_EQ(tile_score(predicted, {2, 3, 4, 5, 6, 7}), 1.0);
  EXPECT_DOUBLE_EQ(tile_score({0.3, 0.1, 0.2}, {1.0, 3.0, 2.0}), 1.0);  // K capped at 3
}

TEST(RankFastestFirst, AscendingAndStable) {
  EXPECT_EQ(rank_fastest_first({2, 1, 2, 1}), (std::vector<int64_t>{1, 3, 0, 2}));
  EXPECT_EQ(rank_fastest_first({NAN, 1, 0}), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_TRUE(rank_fastest_first({}).empty());
}

}  // namespace
}  // namespace graphcost::eval
