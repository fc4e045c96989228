#include "xgb/features.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "xgb/options.h"

namespace graphcost::xgb {
namespace {

data::Graph three_nodes() {
  data::Graph g;
  g.name = "g";
  g.num_nodes = 3;
  g.feature_width = 2;
  g.opcodes = {1, 1, 9};  // 9 is beyond num_opcodes = 4: counted in the last bin
  g.node_features = {1, 10, 2, 20, 3, 30};
  return g;
}

TEST(XgbFeatures, TileRowByHand) {
  FeatureOptions o;
  o.kind = data::ConfigKind::Tile;
  o.node_feature_width = 2;
  o.config_width = 2;
  o.num_opcodes = 4;
  data::ConfigTable t;
  t.kind = data::ConfigKind::Tile;
  t.count = 2;
  t.width = 2;
  t.tile = {0, 3, -7, 1};
  ASSERT_EQ(feature_width(o), 4 + 1 + 4 + 2);
  const std::vector<float> rows = feature_rows(three_nodes(), t.view(), {1}, o);
  const std::vector<float> expected = {0, std::log1p(2.0f), 0, std::log1p(1.0f), std::log1p(3.0f),
                                       6, 60, 2, 20, -std::log1p(7.0f), std::log1p(1.0f)};
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_FLOAT_EQ(rows[i], expected[i]) << i;
}

TEST(XgbFeatures, LayoutSharesAndFirstNodes) {
  FeatureOptions o;
  o.kind = data::ConfigKind::Layout;
  o.node_feature_width = 2;
  o.config_width = 1;
  o.num_opcodes = 1;
  o.layout_nodes = 3;
  data::ConfigTable t;
  t.kind = data::ConfigKind::Layout;
  t.count = 1;
  t.nodes = 2;
  t.width = 1;
  t.layout = {-1, 2};
  const std::vector<float> rows = feature_rows(three_nodes(), t.view(), {0}, o);
  ASSERT_EQ(static_cast<int64_t>(rows.size()), feature_width(o));
  const size_t config = 1 + 1 + 4;  // graph part: one opcode bin, node count, sums and means
  // Shares of {-1..5}: half the nodes -1, half 2; then nodes 0 and 1, and -2 for the absent third.
  const std::vector<float> expected = {0.5f, 0, 0, 0.5f, 0, 0, 0, -1, 2, -2};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(rows[config + i], expected[i]) << i;
}

TEST(XgbFeatures, MismatchedWidthsAreErrors) {
  FeatureOptions o;
  o.node_feature_width = 5;
  o.config_width = 2;
  data::ConfigTable t;
  t.count = 1;
  t.width = 2;
  t.tile = {1, 2};
  EXPECT_THROW(feature_rows(three_nodes(), t.view(), {0}, o), Error);
  nlohmann::json j;
  to_json(j, o);
  FeatureOptions back;
  from_json(j, back);
  EXPECT_EQ(back.node_feature_width, 5);
  j["bins"] = 3;
  EXPECT_THROW(from_json(j, back), Error);
}

}  // namespace
}  // namespace graphcost::xgb
