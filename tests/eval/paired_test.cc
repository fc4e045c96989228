#include "eval/paired.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "core/error.h"

namespace graphcost::eval {
namespace {

TEST(ComparePaired, HandComputedDifferences) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Differences 0.1, -0.1, 0.2 (the NaN unit is skipped): mean 1/15; deviations 1/30, -1/6,
  // 2/15, squares summing to 7/150, over n - 1 = 2: 7/300; standard error sqrt(7/300) / sqrt(3).
  const PairedComparison p = compare_paired({0.5, 0.6, nan, 0.7}, {0.6, 0.5, 0.9, 0.9});
  EXPECT_EQ(p.units, 3);
  EXPECT_NEAR(p.mean_difference, 1.0 / 15, 1e-12);
  EXPECT_NEAR(p.standard_error, std::sqrt(7.0 / 300) / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(p.wins, 2);
  EXPECT_EQ(p.losses, 1);
}

TEST(ComparePaired, TiesAndTooFewUnits) {
  const PairedComparison one = compare_paired({0.5}, {0.5});
  EXPECT_EQ(one.units, 1);
  EXPECT_EQ(one.mean_difference, 0.0);
  EXPECT_TRUE(std::isnan(one.standard_error));
  EXPECT_EQ(one.wins + one.losses, 0);
  const PairedComparison none = compare_paired({}, {});
  EXPECT_EQ(none.units, 0);
  EXPECT_TRUE(std::isnan(none.mean_difference));
  EXPECT_THROW(compare_paired({1, 2}, {1}), Error);
}

TEST(ComparePaired, StudentTIntervalByHand) {
  // Differences 0.01, 0.03, 0.02, 0.04, 0.00: mean 0.02; squared deviations sum to 0.001, so
  // the sample sd is sqrt(0.001 / 4) = 0.0158114 and the standard error 0.0158114 / sqrt(5) =
  // 0.00707107; t(0.975, 4) = 2.776445 (tables), half width 0.0196324.
  const PairedComparison p =
      compare_paired({0.5, 0.5, 0.5, 0.5, 0.5}, {0.51, 0.53, 0.52, 0.54, 0.50});
  EXPECT_EQ(p.units, 5);
  EXPECT_NEAR(p.mean_difference, 0.02, 1e-12);
  EXPECT_NEAR(p.standard_error, 0.00707107, 1e-8);
  EXPECT_NEAR(p.interval_low, 0.0003676, 1e-6);
  EXPECT_NEAR(p.interval_high, 0.0396324, 1e-6);
  EXPECT_TRUE(p.excludes_zero());
  // The same differences minus 0.001 each straddle zero: no detectable effect.
  const PairedComparison q =
      compare_paired({0.5, 0.5, 0.5, 0.5, 0.5}, {0.509, 0.529, 0.519, 0.539, 0.499});
  EXPECT_NEAR(q.interval_low, -0.0006324, 1e-6);
  EXPECT_FALSE(q.excludes_zero());
  // Quantiles from tables: 12.706 (1), 2.571 (5), 2.045 (29).
  EXPECT_NEAR(student_t_975(1), 12.7062, 1e-4);
  EXPECT_NEAR(student_t_975(5), 2.5706, 1e-4);
  EXPECT_NEAR(student_t_975(29), 2.0452, 1e-4);
  EXPECT_TRUE(std::isnan(compare_paired({1.0}, {2.0}).interval_low));
}

TEST(RandomGroups, DisjointNearEqualAndSeeded) {
  const auto groups = random_groups(10, 3, 7);
  ASSERT_EQ(groups.size(), 3u);
  std::multiset<int64_t> all;
  for (const auto& g : groups) {
    EXPECT_TRUE(g.size() == 3u || g.size() == 4u);
    EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
    all.insert(g.begin(), g.end());
  }
  EXPECT_EQ(all, (std::multiset<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(random_groups(10, 3, 7), groups);
  EXPECT_NE(random_groups(10, 3, 8), groups);
  EXPECT_EQ(random_groups(4, 1, 0), (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}}));
  EXPECT_THROW(random_groups(3, 4, 0), Error);
  EXPECT_THROW(random_groups(3, 0, 0), Error);
}

}  // namespace
}  // namespace graphcost::eval
