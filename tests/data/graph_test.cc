#include "data/graph.h"

#include <gtest/gtest.h>

#include "test_records.h"

namespace graphcost::data {
namespace {

TEST(Graph, AdjacencyInBothDirections) {
  Graph g = testing::small_layout_record().graph;
  EXPECT_EQ(g.num_edges(), 4);
  EXPECT_EQ(g.operands.offsets, (std::vector<int64_t>{0, 0, 0, 2, 4}));
  EXPECT_EQ(g.operands.indices, (std::vector<int32_t>{0, 1, 2, 2}));
  EXPECT_EQ(g.users.offsets, (std::vector<int64_t>{0, 1, 2, 4, 4}));
  EXPECT_EQ(g.users.indices, (std::vector<int32_t>{2, 2, 3, 3}));
  EXPECT_EQ(g.operands.degree(3), 2);
  EXPECT_EQ(g.users.degree(3), 0);
  EXPECT_FLOAT_EQ(g.features(2)[1], 3.0f);
}

TEST(Graph, EmptyEdges) {
  Graph g;
  g.num_nodes = 3;
  g.build_adjacency();
  EXPECT_EQ(g.operands.offsets, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_TRUE(g.users.indices.empty());
}

}  // namespace
}  // namespace graphcost::data
