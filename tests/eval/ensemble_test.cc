#include "eval/ensemble.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace graphcost::eval {
namespace {

TEST(Ensemble, OneModelIsItsOwnScores) {
  const std::vector<double> scores = {3.5, -1, 2, 2};
  EXPECT_EQ(combine_scores({scores}, "mean"), scores);
  EXPECT_EQ(combine_scores({scores}, "rank"), scores);
}

TEST(Ensemble, RanksShareTies) {
  EXPECT_EQ(ascending_ranks({0.5, 0.1, 0.5, 0.9}), (std::vector<double>{2.5, 1, 2.5, 4}));
  EXPECT_TRUE(ascending_ranks({}).empty());
}

TEST(Ensemble, StandardisedMeanByHand) {
  // a: mean 2, population std sqrt(2/3); b is 10x a shifted: the same standardised scores.
  const std::vector<double> a = {1, 2, 3}, b = {110, 120, 130};
  const double z = 1 / std::sqrt(2.0 / 3.0);
  const std::vector<double> combined = combine_scores({a, b}, "mean");
  ASSERT_EQ(combined.size(), 3u);
  EXPECT_NEAR(combined[0], -z, 1e-12);
  EXPECT_NEAR(combined[1], 0, 1e-12);
  EXPECT_NEAR(combined[2], z, 1e-12);
  // A constant model contributes zeros, not NaN.
  const std::vector<double> with_constant = combine_scores({a, {5, 5, 5}}, "mean");
  EXPECT_NEAR(with_constant[0], -z / 2, 1e-12);
}

TEST(Ensemble, MeanReciprocalRankByHand) {
  // Ranks a: 1 2 3, b: 3 1 2; reciprocal means: (1 + 1/3)/2, (1/2 + 1)/2, (1/3 + 1/2)/2.
  const std::vector<double> combined = combine_scores({{1, 2, 3}, {30, 10, 20}}, "rank");
  ASSERT_EQ(combined.size(), 3u);
  EXPECT_NEAR(combined[0], -2.0 / 3.0, 1e-12);
  EXPECT_NEAR(combined[1], -0.75, 1e-12);
  EXPECT_NEAR(combined[2], -5.0 / 12.0, 1e-12);
  // Configuration 1 wins: second for one model, first for the other.
  EXPECT_LT(combined[1], combined[0]);
}

TEST(Ensemble, BadInputsAreErrors) {
  EXPECT_THROW(combine_scores({{1, 2}, {1}}, "mean"), Error);
  EXPECT_THROW(combine_scores({}, "mean"), Error);
  EXPECT_THROW(combine_scores({{1}}, "median"), Error);
}

}  // namespace
}  // namespace graphcost::eval
