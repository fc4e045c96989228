#include "model/forward/graph_tensors.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../tensor_testing.h"
#include "core/error.h"

namespace graphcost::model {
namespace {

data::Graph three_nodes() {
  data::Graph g;
  g.name = "three";
  g.num_nodes = 3;
  g.feature_width = 2;
  g.opcodes = {4, 0, 7};
  g.node_features = {0.0f, 1.0f, -3.0f, 100.0f, 2.5f, -0.5f};
  g.edges = {2, 0, 2, 1, 1, 0};  // node 2 uses 0 and 1, node 1 uses 0
  g.configurable_nodes = {2, 0};
  g.build_adjacency();
  return g;
}

TEST(GraphTensors, CompressesFeaturesAndCopiesAdjacency) {
  GraphTensors t = make_graph_tensors(three_nodes());
  EXPECT_EQ(t.num_nodes, 3);
  EXPECT_EQ(testing::int64_values(t.opcodes), (std::vector<int64_t>{4, 0, 7}));
  ASSERT_EQ(t.node_features.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_FLOAT_EQ(t.node_features[0][0].item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(t.node_features[0][1].item<float>(), std::log(2.0f));
  EXPECT_FLOAT_EQ(t.node_features[1][0].item<float>(), -std::log(4.0f));
  EXPECT_FLOAT_EQ(t.node_features[1][1].item<float>(), std::log(101.0f));
  EXPECT_FLOAT_EQ(t.node_features[2][1].item<float>(), -std::log(1.5f));
  EXPECT_EQ(testing::int64_values(t.operand_offsets), (std::vector<int64_t>{0, 0, 1, 3}));
  EXPECT_EQ(testing::int64_values(t.operand_indices), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(testing::int64_values(t.user_offsets), (std::vector<int64_t>{0, 2, 3, 3}));
  EXPECT_EQ(testing::int64_values(t.user_indices), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(testing::int64_values(t.configurable_nodes), (std::vector<int64_t>{2, 0}));
}

TEST(GraphTensors, RejectsMissingAdjacency) {
  data::Graph g = three_nodes();
  g.users.offsets.clear();
  EXPECT_THROW(make_graph_tensors(g), Error);
}

TEST(Slate, CopiesListedLayoutConfigurations) {
  GraphTensors t = make_graph_tensors(three_nodes());
  data::ConfigTable table;
  table.kind = data::ConfigKind::Layout;
  table.count = 3;
  table.nodes = 2;
  table.width = 2;
  table.layout = {0, 1, 2, 3, -1, -1, 5, 4, 1, 1, 0, 0};
  table.runtimes = {10.0, 20.0, 30.0};
  Slate s = make_slate(t, table.view(), {2, 0});
  ASSERT_EQ(s.config_features.sizes(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(s.config_features[0][0][0].item<float>(), 1.0f);
  EXPECT_EQ(s.config_features[0][1][1].item<float>(), 0.0f);
  EXPECT_EQ(s.config_features[1][1][0].item<float>(), 2.0f);
  ASSERT_TRUE(s.runtimes.defined());
  EXPECT_EQ(s.runtimes.scalar_type(), torch::kDouble);
  EXPECT_EQ(s.runtimes[0].item<double>(), 30.0);
  EXPECT_EQ(s.runtimes[1].item<double>(), 10.0);
  EXPECT_EQ(s.graph, &t);
  EXPECT_THROW(make_slate(t, table.view(), {3}), Error);
}

TEST(Slate, CopiesTileConfigurationsWithoutRuntimes) {
  GraphTensors t = make_graph_tensors(three_nodes());
  data::ConfigTable table;
  table.kind = data::ConfigKind::Tile;
  table.count = 2;
  table.width = 3;
  table.tile = {1, 2, 3, 4, 5, 6};
  Slate s = make_slate(t, table.view(), {1});
  ASSERT_EQ(s.config_features.sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(s.config_features[0][2].item<float>(), 6.0f);
  EXPECT_FALSE(s.runtimes.defined());
}

TEST(Slate, RejectsLayoutNodeCountMismatch) {
  GraphTensors t = make_graph_tensors(three_nodes());
  data::ConfigTable table;
  table.kind = data::ConfigKind::Layout;
  table.count = 1;
  table.nodes = 3;
  table.width = 1;
  table.layout = {0, 0, 0};
  EXPECT_THROW(make_slate(t, table.view(), {0}), Error);
}

}  // namespace
}  // namespace graphcost::model
