#include "tune/search_space.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "test_space.h"

namespace graphcost::tune {
namespace {

TEST(SearchSpace, DecodesKernelTunerParameters) {
  const data::GraphRecord r = testing::small_tune_record();
  const SearchSpace s = make_search_space("toy", r.configs.view(), testing::small_tune_layout());
  ASSERT_EQ(s.count, 12);
  ASSERT_EQ(s.parameter_count(), 2);
  EXPECT_EQ(s.parameters[0].name, "x");
  EXPECT_EQ(s.assignment(0), "x=1 y=0");
  EXPECT_EQ(s.assignment(7), "x=4 y=1");  // row 7: x index 2, y 1
  EXPECT_EQ(s.values(11), (std::vector<std::string>{"8", "2"}));
  EXPECT_EQ(s.failed[2], 1);
  EXPECT_DOUBLE_EQ(s.optimum(), 10.0);
}

TEST(SearchSpace, ColumnsBecomeParametersWithoutALayout) {
  const data::GraphRecord r = testing::small_tune_record();
  const SearchSpace s = make_search_space("toy", r.configs.view());
  ASSERT_EQ(s.parameter_count(), 2);
  EXPECT_EQ(s.parameters[1].name, "c1");
  EXPECT_EQ(s.parameters[0].labels, (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(s.assignment(5), "c0=1 c1=2");
}

TEST(SearchSpace, OneHotParametersDecodeToTheirValue) {
  data::ConfigTable t;
  t.kind = data::ConfigKind::Tile;
  t.width = 3;
  t.count = 2;
  // Columns 0-1: a one-hot over {"a", "b"}; column 2: log2 of {16, 1}.
  t.tile = {0, 1, 0, 1, 0, 4};
  io::KernelTunerParameter kind{"kind", 0, true, {"\"a\"", "\"b\""}, {}};
  io::KernelTunerParameter size{"size", 2, false, {"16", "1"}, {4, 0}};
  const SearchSpace s = make_search_space("t", t.view(), {kind, size});
  EXPECT_EQ(s.assignment(0), "kind=b size=1");
  EXPECT_EQ(s.assignment(1), "kind=a size=16");
  EXPECT_FALSE(s.parameters[0].ordered);
  EXPECT_EQ(s.parameters[1].labels, (std::vector<std::string>{"1", "16"}));  // sorted
  EXPECT_TRUE(std::isnan(s.optimum()));  // no runtimes
}

TEST(SearchSpace, LayoutConfigurationsAreRejected) {
  data::ConfigTable t;
  t.kind = data::ConfigKind::Layout;
  t.count = 1;
  EXPECT_THROW(make_search_space("t", t.view()), Error);
}

}  // namespace
}  // namespace graphcost::tune
