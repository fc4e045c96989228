#include "data/segment.h"

#include <gtest/gtest.h>

#include <random>

#include "core/error.h"

namespace graphcost::data {
namespace {

using Nodes = std::vector<std::vector<int32_t>>;

// 8 nodes, two features each (feature = 10 * node + column), configurable nodes 1, 4, 6.
Graph small_graph() {
  Graph g;
  g.name = "small";
  g.num_nodes = 8;
  g.feature_width = 2;
  for (int32_t v = 0; v < 8; ++v) {
    g.opcodes.push_back(100 + v);
    g.node_features.push_back(10.0f * v);
    g.node_features.push_back(10.0f * v + 1);
  }
  g.edges = {1, 0, 2, 1, 3, 0, 4, 3, 5, 2, 5, 4, 6, 5, 7, 6, 7, 1};
  g.configurable_nodes = {1, 4, 6};
  g.build_adjacency();
  return g;
}

TEST(Segment, NodeSplitsGroupWholeComputations) {
  Graph g = small_graph();
  g.node_splits = {3, 5};  // computations [0,3) [3,5) [5,8)
  EXPECT_EQ(partition_graph(g, 5, SegmentPartition::Contiguous), (Nodes{{0, 1, 2, 3, 4}, {5, 6, 7}}));
  const std::vector<GraphSegment> s = segment_graph(g, 5, SegmentPartition::Contiguous);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].graph.edges, (std::vector<int32_t>{1, 0, 2, 1, 3, 0, 4, 3}));
  EXPECT_EQ(s[0].graph.configurable_nodes, (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(s[0].config_columns, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(s[1].graph.edges, (std::vector<int32_t>{1, 0, 2, 1}));
  EXPECT_EQ(s[1].graph.configurable_nodes, (std::vector<int32_t>{1}));
  EXPECT_EQ(s[1].config_columns, (std::vector<int64_t>{2}));
  EXPECT_EQ(s[1].nodes, (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(s[1].graph.opcodes, (std::vector<int32_t>{105, 106, 107}));
  EXPECT_EQ(s[1].graph.node_features, (std::vector<float>{50, 51, 60, 61, 70, 71}));
  EXPECT_EQ(s[1].graph.name, "small#1");
  EXPECT_TRUE(s[1].graph.node_splits.empty());
  // The segment's adjacency is rebuilt: node 7's operand inside is 6 (local 1 -> 2).
  EXPECT_EQ(s[1].graph.operands.degree(2), 1);
  EXPECT_EQ(s[1].graph.operands.indices[s[1].graph.operands.offsets[2]], 1);
}

TEST(Segment, OversizedComputationIsCut) {
  Graph g = small_graph();
  g.node_splits = {2};  // [0,2) fits, [2,8) is cut in two
  EXPECT_EQ(partition_graph(g, 3, SegmentPartition::Contiguous),
            (Nodes{{0, 1}, {2, 3, 4}, {5, 6, 7}}));
}

TEST(Segment, ContiguousRangesWithoutSplits) {
  const Graph g = small_graph();
  EXPECT_EQ(partition_graph(g, 3, SegmentPartition::Contiguous),
            (Nodes{{0, 1}, {2, 3, 4}, {5, 6, 7}}));
  const std::vector<GraphSegment> s = segment_graph(g, 3, SegmentPartition::Contiguous);
  EXPECT_EQ(s[0].graph.edges, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(s[1].graph.edges, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(s[2].graph.edges, (std::vector<int32_t>{1, 0, 2, 1}));
  EXPECT_EQ(s[0].config_columns, (std::vector<int64_t>{0}));
  EXPECT_EQ(s[1].graph.configurable_nodes, (std::vector<int32_t>{2}));
  EXPECT_EQ(s[1].config_columns, (std::vector<int64_t>{1}));
  EXPECT_EQ(s[2].config_columns, (std::vector<int64_t>{2}));
  // One segment is the graph itself.
  const std::vector<GraphSegment> whole = segment_graph(g, 8, SegmentPartition::Contiguous);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].graph.edges, g.edges);
  EXPECT_EQ(whole[0].graph.configurable_nodes, g.configurable_nodes);
}

TEST(Segment, NamesAndBadInput) {
  EXPECT_EQ(parse_segment_partition("metis"), SegmentPartition::Metis);
  EXPECT_EQ(segment_partition_name(parse_segment_partition("contiguous")), "contiguous");
  EXPECT_THROW(parse_segment_partition("louvain"), Error);
  EXPECT_THROW(partition_graph(small_graph(), 0, SegmentPartition::Contiguous), Error);
  EXPECT_THROW(extract_segment(small_graph(), {1, 1}), Error);
  EXPECT_TRUE(partition_graph(Graph{}, 4, SegmentPartition::Metis).empty());
}

// Random DAGs: each partition covers every node once within the bound and keeps exactly the
// edges whose ends share a segment.
TEST(Segment, RandomGraphsCoverNodesAndKeepInternalEdges) {
  std::mt19937 rng(5);
  for (SegmentPartition method : {SegmentPartition::Contiguous, SegmentPartition::Metis}) {
    for (int trial = 0; trial < 6; ++trial) {
      Graph g;
      g.num_nodes = 50 + 37 * trial;
      g.feature_width = 1;
      g.opcodes.assign(g.num_nodes, 0);
      g.node_features.assign(g.num_nodes, 0.0f);
      for (int32_t v = 1; v < g.num_nodes; ++v) {
        g.edges.insert(g.edges.end(), {v, v - 1});
        g.edges.insert(g.edges.end(), {v, std::uniform_int_distribution<int32_t>(0, v - 1)(rng)});
      }
      for (int32_t v = 0; v < g.num_nodes; v += 3) g.configurable_nodes.push_back(v);
      if (trial % 2) g.node_splits = {7, 20, 21, 40};
      g.build_adjacency();
      const int64_t max_nodes = 8 + 5 * trial;
      const std::vector<GraphSegment> segments = segment_graph(g, max_nodes, method);
      std::vector<int> part(g.num_nodes, -1), seen(g.num_nodes, 0);
      int64_t kept_edges = 0, configurable = 0;
      for (size_t s = 0; s < segments.size(); ++s) {
        EXPECT_LE(segments[s].graph.num_nodes, max_nodes);
        EXPECT_GT(segments[s].graph.num_nodes, 0);
        for (int32_t v : segments[s].nodes) {
          ++seen[v];
          part[v] = static_cast<int>(s);
        }
        kept_edges += segments[s].graph.num_edges();
        configurable += static_cast<int64_t>(segments[s].config_columns.size());
        for (size_t k = 0; k < segments[s].config_columns.size(); ++k) {
          EXPECT_EQ(g.configurable_nodes[segments[s].config_columns[k]],
                    segments[s].nodes[segments[s].graph.configurable_nodes[k]]);
        }
      }
      for (int64_t v = 0; v < g.num_nodes; ++v) EXPECT_EQ(seen[v], 1) << "node " << v;
      int64_t internal = 0;
      for (int64_t e = 0; e < g.num_edges(); ++e)
        internal += part[g.edges[2 * e]] == part[g.edges[2 * e + 1]];
      EXPECT_EQ(kept_edges, internal);
      EXPECT_EQ(configurable, static_cast<int64_t>(g.configurable_nodes.size()));
    }
  }
}

TEST(Segment, MetisCutsFewerEdgesThanItCouldAndIsDeterministic) {
  // Two 30-node chains joined by one edge: a 2-way METIS cut separates the chains.
  Graph g;
  g.num_nodes = 60;
  g.feature_width = 1;
  g.opcodes.assign(60, 0);
  g.node_features.assign(60, 0.0f);
  for (int32_t v = 1; v < 30; ++v) {
    g.edges.insert(g.edges.end(), {2 * v, 2 * (v - 1)});          // even chain
    g.edges.insert(g.edges.end(), {2 * v + 1, 2 * (v - 1) + 1});  // odd chain
  }
  g.edges.insert(g.edges.end(), {1, 0});
  g.build_adjacency();
  const Nodes parts = partition_graph(g, 30, SegmentPartition::Metis);
  ASSERT_EQ(parts.size(), 2u);
  for (const auto& p : parts) {
    for (int32_t v : p) EXPECT_EQ(v % 2, p[0] % 2);
  }
  EXPECT_EQ(parts, partition_graph(g, 30, SegmentPartition::Metis));
}

}  // namespace
}  // namespace graphcost::data
