#include "model/forward/config_reach.h"

#include <gtest/gtest.h>

#include "../tensor_testing.h"
#include "core/error.h"

namespace graphcost::model {
namespace {

// A chain 0 <- 1 <- 2 <- 3 <- 4 (each node uses the previous one) plus an isolated node 5.
GraphTensors chain(std::vector<int32_t> configurable) {
  data::Graph g;
  g.num_nodes = 6;
  g.feature_width = 1;
  g.opcodes.assign(6, 0);
  g.node_features.assign(6, 0.0f);
  g.edges = {1, 0, 2, 1, 3, 2, 4, 3};
  g.configurable_nodes = configurable;
  g.build_adjacency();
  return make_graph_tensors(g);
}

TEST(ConfigReach, OrdersNodesByHopsFromConfigurableNodes) {
  const ConfigReachPlan plan = plan_config_reach(chain({2}), 1, false);
  EXPECT_EQ(testing::int64_values(plan.order), (std::vector<int64_t>{2, 1, 3, 0, 4, 5}));
  EXPECT_EQ(plan.reach, (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(testing::int64_values(plan.config_position), (std::vector<int64_t>{0}));
  ASSERT_EQ(plan.layers.size(), 1u);
  // Layer 1 rows are labels 0..2 (nodes 2, 1, 3); their operands in labels: 2 -> 1, 1 -> 0 (node
  // 0 has label 3), 3 -> 2 (label 0).
  EXPECT_EQ(testing::int64_values(plan.layers[0].operand_offsets), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(testing::int64_values(plan.layers[0].operand_indices), (std::vector<int64_t>{1, 3, 0}));
  // Reverse over input labels 0..4: who among the rows uses each one.
  EXPECT_EQ(testing::int64_values(plan.layers[0].operand_reverse_offsets),
            (std::vector<int64_t>{0, 1, 2, 2, 3, 3}));
  EXPECT_EQ(testing::int64_values(plan.layers[0].operand_reverse_indices), (std::vector<int64_t>{2, 0, 1}));
}

TEST(ConfigReach, SharedPassCoversWhatTheReachedRowsRead) {
  // Node 0 configurable: nodes 0..4 lie 0..4 hops away along the chain, node 5 is never reached.
  const ConfigReachPlan every = plan_config_reach(chain({0}), 2, false);
  EXPECT_EQ(every.shared_rows, (std::vector<int64_t>{6, 6}));
  EXPECT_EQ(every.shared_inputs, (std::vector<int64_t>{6, 6}));
  const ConfigReachPlan plan = plan_config_reach(chain({0}), 2, false, /*final_shared=*/false);
  EXPECT_EQ(testing::int64_values(plan.order), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(plan.reach, (std::vector<int64_t>{1, 2, 3, 4}));
  // Layer 2 (the last) needs its shared pre-activation on the 2-hop rows and reads 3 hops;
  // layer 1 must then produce those 3-hop rows, reading 4 hops. Node 5 is never computed.
  EXPECT_EQ(plan.shared_rows, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(plan.shared_inputs, (std::vector<int64_t>{5, 4}));
  ASSERT_EQ(plan.shared_layers.size(), 2u);
  const ReachLayerCsr& last = plan.shared_layers[1];
  EXPECT_EQ(testing::int64_values(last.operand_offsets), (std::vector<int64_t>{0, 0, 1, 2}));
  EXPECT_EQ(testing::int64_values(last.operand_indices), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(testing::int64_values(last.user_offsets), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(testing::int64_values(last.user_indices), (std::vector<int64_t>{1, 2, 3}));
  // Reverse of the operand CSR over the 4 inputs: label 3 is read by no row.
  EXPECT_EQ(testing::int64_values(last.operand_reverse_offsets), (std::vector<int64_t>{0, 1, 2, 2, 2}));
  EXPECT_EQ(testing::int64_values(last.operand_reverse_indices), (std::vector<int64_t>{1, 2}));
}

TEST(ConfigReach, TileReachesEveryNodeAndDuplicatesAreRejected) {
  const ConfigReachPlan tile = plan_config_reach(chain({}), 2, true);
  EXPECT_EQ(tile.reach, (std::vector<int64_t>{6, 6, 6, 6}));
  EXPECT_EQ(testing::int64_values(tile.order), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_THROW(plan_config_reach(chain({3, 3}), 1, false), Error);
}

}  // namespace
}  // namespace graphcost::model
