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
