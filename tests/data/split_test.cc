#include "data/split.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "test_records.h"

namespace graphcost::data {
namespace {

TEST(Split, PartitionsConfigurationsAndKeepsOrder) {
  GraphRecord r = testing::small_layout_record();
  r.configs.runtimes = {1, 2, 3};
  auto [train, held_out] = split_configs(r, 0.34, 7);
  EXPECT_EQ(train.configs.count, 1);
  EXPECT_EQ(held_out.configs.count, 2);
  std::vector<double> all = train.configs.runtimes;
  all.insert(all.end(), held_out.configs.runtimes.begin(), held_out.configs.runtimes.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<double>{1, 2, 3}));
  EXPECT_TRUE(std::is_sorted(held_out.configs.runtimes.begin(), held_out.configs.runtimes.end()));
  // Each runtime still travels with its own configuration.
  for (const GraphRecord* part : {&train, &held_out}) {
    for (int64_t j = 0; j < part->configs.count; ++j) {
      int64_t original = static_cast<int64_t>(part->configs.runtimes[j]) - 1;
      EXPECT_TRUE(std::equal(part->configs.layout.begin() + j * 4, part->configs.layout.begin() + j * 4 + 4,
                             r.configs.layout.begin() + original * 4));
    }
  }
}

TEST(Split, SameSeedSameSplit) {
  GraphRecord r = testing::small_layout_record();
  EXPECT_EQ(split_configs(r, 0.5, 3).first.configs.runtimes, split_configs(r, 0.5, 3).first.configs.runtimes);
}

TEST(Split, RejectsBadFraction) {
  GraphRecord r = testing::small_layout_record();
  EXPECT_THROW(split_configs(r, 1.0, 1), Error);
  EXPECT_THROW(split_configs(r, 0.0, 1), Error);
}

}  // namespace
}  // namespace graphcost::data
