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
