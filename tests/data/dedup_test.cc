#include "data/dedup.h"

#include <gtest/gtest.h>

#include "test_records.h"

namespace graphcost::data {
namespace {

TEST(Dedup, FirstIdenticalConfig) {
  ConfigTable t = testing::small_layout_record().configs;
  EXPECT_EQ(first_identical_config(t.view()), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(count_distinct_configs(t.view()), 2);
}

TEST(Dedup, MergeKeepsMinimumRuntimeInFirstOccurrenceOrder) {
  ConfigTable t = testing::small_layout_record().configs;
  EXPECT_EQ(merge_duplicate_configs(t), 1);
  EXPECT_EQ(t.count, 2);
  EXPECT_EQ(t.runtimes, (std::vector<double>{10, 20}));
  EXPECT_EQ(t.layout, (std::vector<int8_t>{0, 1, 1, 0, -1, -1, 0, 1}));
}

TEST(Dedup, TileConfigs) {
  ConfigTable t;
  t.kind = ConfigKind::Tile;
  t.count = 4;
  t.width = 2;
  t.tile = {1, 2, 3, 4, 1, 2, 1, 2};
  t.runtimes = {5, 6, 4, 7};
  EXPECT_EQ(count_distinct_configs(t.view()), 2);
  EXPECT_EQ(merge_duplicate_configs(t), 2);
  EXPECT_EQ(t.tile, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(t.runtimes, (std::vector<double>{4, 6}));
}

TEST(Dedup, FailedFlagFollowsTheKeptRuntimeAndDefaultMovesToFirstCopy) {
  ConfigTable t;
  t.kind = ConfigKind::Tile;
  t.count = 4;
  t.width = 1;
  t.tile = {1, 2, 1, 2};
  t.runtimes = {50, 6, 4, 60};
  t.failed = {1, 0, 0, 1};
  t.default_config = 2;
  EXPECT_EQ(merge_duplicate_configs(t), 2);
  EXPECT_EQ(t.runtimes, (std::vector<double>{4, 6}));
  EXPECT_EQ(t.failed, (std::vector<uint8_t>{0, 0}));  // config 2 succeeded where 0 failed
  EXPECT_EQ(t.default_config, 0);
  EXPECT_EQ(t.view().failed[1], 0);
  EXPECT_EQ(t.view().default_config, 0);
}

TEST(ConfigTable, SelectCarriesFailedFlagsAndDefault) {
  ConfigTable t;
  t.kind = ConfigKind::Tile;
  t.count = 4;
  t.width = 1;
  t.tile = {10, 11, 12, 13};
  t.runtimes = {1, 2, 3, 4};
  t.failed = {0, 1, 0, 1};
  t.default_config = 3;
  ConfigTable kept = t;
  kept.select({3, 1, 2});
  EXPECT_EQ(kept.tile, (std::vector<float>{13, 11, 12}));
  EXPECT_EQ(kept.failed, (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(kept.default_config, 0);
  t.select({0, 2});
  EXPECT_EQ(t.failed, (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(t.default_config, -1);
  EXPECT_EQ(ConfigTable{}.view().failed, nullptr);
}

TEST(Dedup, WithoutRuntimesNothingMerges) {
  ConfigTable t = testing::small_layout_record().configs;
  t.runtimes.clear();
  EXPECT_EQ(merge_duplicate_configs(t), 0);
  EXPECT_EQ(t.count, 3);
}

TEST(Dedup, EmptyTable) {
  ConfigTable t;
  t.kind = ConfigKind::Layout;
  EXPECT_EQ(count_distinct_configs(t.view()), 0);
  EXPECT_EQ(merge_duplicate_configs(t), 0);
}

}  // namespace
}  // namespace graphcost::data
