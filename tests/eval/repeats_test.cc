// Repeated measurements: pairing by record gap, failed records, the fast group and the agreement
// figures, all worked out by hand.
#include "eval/repeats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "repeat_records.h"

namespace graphcost::eval {
namespace {

TEST(Repeats, PairsTheFirstSuccessfulRecordWithTheFirstRepeatFarEnough) {
  const data::ConfigTable t = repeat_records();
  // Gap 1: config 0 (0, 2), 1 (1, 4), 2 (3, 8: 6 failed), 4 (10, 11: 9 failed); 3 once.
  RepeatPairs p = repeat_pairs(t.view(), 1);
  EXPECT_EQ(p.first_record, (std::vector<int64_t>{0, 1, 3, 10}));
  EXPECT_EQ(p.second_record, (std::vector<int64_t>{2, 4, 8, 11}));
  EXPECT_EQ(p.first, (std::vector<double>{10, 20, 30, 50}));
  EXPECT_EQ(p.second, (std::vector<double>{12, 18, 15, 52}));
  // Gap 3: config 0 pairs with record 5; config 4's repeat is too close.
  p = repeat_pairs(t.view(), 3);
  EXPECT_EQ(p.first_record, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(p.second_record, (std::vector<int64_t>{5, 4, 8}));
  EXPECT_EQ(p.second, (std::vector<double>{11, 18, 15}));
  // Gap 4: only config 0 (0, 5) and 2 (3, 8).
  p = repeat_pairs(t.view(), 4);
  EXPECT_EQ(p.first_record, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(repeat_pairs(t.view(), 6).size(), 0);
  // At most 2 apart: config 0 (0, 2) and 4 (10, 11); config 1's repeat is 3 later, 2's 5.
  p = repeat_pairs(t.view(), 1, 2);
  EXPECT_EQ(p.first_record, (std::vector<int64_t>{0, 10}));
  EXPECT_EQ(p.second_record, (std::vector<int64_t>{2, 11}));
}

TEST(Repeats, AgreementByHand) {
  const RepeatPairs p = repeat_pairs(repeat_records().view(), 1);
  // first (10, 20, 30, 50) against second (12, 18, 15, 52): of the six pairs only (1, 2) is
  // discordant, so tau = (5 - 1) / 6. Relative differences 0.2, 2/18, 1, 2/50: median
  // (2/18 + 0.2) / 2.
  const Agreement a = agreement(p);
  EXPECT_EQ(a.count, 4);
  EXPECT_NEAR(a.tau, 2.0 / 3, 1e-12);
  EXPECT_NEAR(a.bound, std::sqrt(2.0 / 3), 1e-12);
  EXPECT_NEAR(a.median_relative_difference, (2.0 / 18 + 0.2) / 2, 1e-12);
  // Odd count: the middle value.
  const Agreement three = agreement(p.select({0, 1, 2}));
  EXPECT_NEAR(three.median_relative_difference, 0.2, 1e-12);
  EXPECT_NEAR(three.tau, 1.0 / 3, 1e-12);
  const Agreement none = agreement(RepeatPairs{});
  EXPECT_EQ(none.count, 0);
  EXPECT_TRUE(std::isnan(none.tau));
  EXPECT_TRUE(std::isnan(none.median_relative_difference));
}

TEST(Repeats, FastGroupAndSelect) {
  const RepeatPairs p = repeat_pairs(repeat_records().view(), 1);
  // Fastest 10: below 12.5 only config 0 (max 12); below 25 configs 0 and 1 (max 20).
  EXPECT_EQ(fast_pairs(p, 10, 1.25), (std::vector<int64_t>{0}));
  EXPECT_EQ(fast_pairs(p, 10, 2.5), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(fast_pairs(p, 10, 1.1), (std::vector<int64_t>{}));
  const RepeatPairs s = p.select({3, 0});
  EXPECT_EQ(s.first_record, (std::vector<int64_t>{10, 0}));
  EXPECT_EQ(s.second, (std::vector<double>{52, 12}));
}

TEST(Repeats, OracleBound) {
  EXPECT_DOUBLE_EQ(oracle_tau_bound(0.25), 0.5);
  EXPECT_DOUBLE_EQ(oracle_tau_bound(1), 1);
  EXPECT_TRUE(std::isnan(oracle_tau_bound(0)));
  EXPECT_TRUE(std::isnan(oracle_tau_bound(-0.5)));
  EXPECT_TRUE(std::isnan(oracle_tau_bound(std::nan(""))));
}

TEST(Repeats, BadInput) {
  data::ConfigTable t = repeat_records();
  EXPECT_THROW(repeat_pairs(t.view(), 0), Error);
  EXPECT_THROW(repeat_pairs(t.view(), 3, 2), Error);
  t.runtimes.clear();
  EXPECT_THROW(repeat_pairs(t.view(), 1), Error);
}

}  // namespace
}  // namespace graphcost::eval
