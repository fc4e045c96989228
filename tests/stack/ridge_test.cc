// Ridge in closed form against the normal equations solved by hand (Cramer's rule, double).
#include "stack/ridge.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace graphcost::stack {
namespace {

TEST(Ridge, TwoColumnsMatchTheNormalEquations) {
  // X (4 x 2) and y by hand.
  const std::vector<double> x = {1, 2, -1, 0.5, 3, -2, 0, 1};
  const std::vector<double> y = {1.5, -0.25, 2, 0.75};
  const double lambda = 0.5;
  // A = X'X + lambda I, b = X'y, written out.
  const double a11 = 1 + 1 + 9 + 0 + lambda, a12 = 2 - 0.5 - 6 + 0, a22 = 4 + 0.25 + 4 + 1 + lambda;
  const double b1 = 1.5 + 0.25 + 6 + 0, b2 = 3 - 0.125 - 4 + 0.75;
  const double det = a11 * a22 - a12 * a12;
  const std::vector<double> w = fit_ridge(x, 2, y, lambda);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NEAR(w[0], (b1 * a22 - a12 * b2) / det, 1e-14);
  EXPECT_NEAR(w[1], (a11 * b2 - a12 * b1) / det, 1e-14);
  const std::vector<double> fitted = linear_scores(x, w);
  ASSERT_EQ(fitted.size(), 4u);
  EXPECT_DOUBLE_EQ(fitted[1], -w[0] + 0.5 * w[1]);
}

TEST(Ridge, ThreeColumnsWithoutPenaltyRecoverExactWeights) {
  // y = 2 a - b + 0.5 c exactly: least squares without a penalty gives the weights back.
  std::vector<double> x, y;
  const double rows[5][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {2, -1, 3}};
  for (const auto& r : rows) {
    x.insert(x.end(), r, r + 3);
    y.push_back(2 * r[0] - r[1] + 0.5 * r[2]);
  }
  const std::vector<double> w = fit_ridge(x, 3, y, 0.0);
  EXPECT_NEAR(w[0], 2.0, 1e-12);
  EXPECT_NEAR(w[1], -1.0, 1e-12);
  EXPECT_NEAR(w[2], 0.5, 1e-12);
}

TEST(Ridge, BadInputsAreErrors) {
  // Two identical columns and no penalty: singular.
  EXPECT_THROW(fit_ridge({1, 1, 2, 2, 3, 3}, 2, {1, 2, 3}, 0.0), Error);
  EXPECT_NO_THROW(fit_ridge({1, 1, 2, 2, 3, 3}, 2, {1, 2, 3}, 0.1));
  EXPECT_THROW(fit_ridge({1, 2, 3}, 2, {1, 2}, 0.1), Error);
  EXPECT_THROW(fit_ridge({1, 2}, 1, {1, 2}, -1.0), Error);
}

}  // namespace
}  // namespace graphcost::stack
