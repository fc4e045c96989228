#include "data/prune.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/random.h"
#include "data/validate.h"
#include "io/tpugraphs_npz.h"
#include "test_records.h"

namespace graphcost::data {
namespace {

// 7 nodes in topological order, edges [consumer, operand]:
//   0 parameter;  1 = f(0) configurable;  2 = q(0) (a sibling of 1: reached only by going up to
//   0 and down again);  3 = g(1) configurable;  4 = h(3);  5 = k(4);  6 = l(5).
// configurable_nodes lists 3 before 1 so the remapping must keep that order.
// Undirected distances to {1, 3}: 1,3 -> 0; 0,4 -> 1; 2,5 -> 2; 6 -> 3.
GraphRecord chain_record() {
  GraphRecord r;
  r.source = "chain.npz";
  Graph& g = r.graph;
  g.name = "chain";
  g.num_nodes = 7;
  g.feature_width = 1;
  g.opcodes = {100, 101, 102, 103, 104, 105, 106};
  g.node_features = {0, 10, 20, 30, 40, 50, 60};
  g.edges = {1, 0, 2, 0, 3, 1, 4, 3, 5, 4, 6, 5};
  g.node_splits = {0, 2, 5};
  g.configurable_nodes = {3, 1};
  g.build_adjacency();
  ConfigTable& t = r.configs;
  t.kind = ConfigKind::Layout;
  t.count = 2;
  t.nodes = 2;
  t.width = 1;
  t.layout = {1, 2, 3, 4};
  t.runtimes = {5, 6};
  return r;
}

TEST(NodesWithinHops, CountsHopsInBothDirections) {
  Graph g = chain_record().graph;
  EXPECT_EQ(nodes_within_hops(g, {3, 1, 3}, 0), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(nodes_within_hops(g, {3, 1}, 1), (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(nodes_within_hops(g, {3, 1}, 2), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(nodes_within_hops(g, {3, 1}, 3), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(nodes_within_hops(g, {6}, 2), (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(nodes_within_hops(g, {}, 5), (std::vector<int64_t>{}));
}

TEST(PruneToConfigNeighbourhood, ZeroHopsKeepsOnlyConfigurableNodes) {
  GraphRecord p = prune_to_config_neighbourhood(chain_record(), 0);
  const Graph& g = p.graph;
  EXPECT_EQ(g.num_nodes, 2);
  EXPECT_EQ(g.opcodes, (std::vector<int32_t>{101, 103}));
  EXPECT_EQ(g.node_features, (std::vector<float>{10, 30}));
  EXPECT_EQ(g.edges, (std::vector<int32_t>{1, 0}));  // 3 = g(1) survives as 1 = g(0)
  EXPECT_EQ(g.configurable_nodes, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(g.node_splits, (std::vector<int64_t>{0, 1, 2}));  // 0 -> node 1, 2 -> node 3, 5 -> end
  EXPECT_EQ(p.configs.layout, chain_record().configs.layout);
  validate_record(p);
}

TEST(PruneToConfigNeighbourhood, OneHopKeepsOperandsAndUsers) {
  GraphRecord p = prune_to_config_neighbourhood(chain_record(), 1);
  const Graph& g = p.graph;
  // Kept 0, 1, 3, 4 -> 0, 1, 2, 3.
  EXPECT_EQ(g.num_nodes, 4);
  EXPECT_EQ(g.opcodes, (std::vector<int32_t>{100, 101, 103, 104}));
  EXPECT_EQ(g.node_features, (std::vector<float>{0, 10, 30, 40}));
  EXPECT_EQ(g.edges, (std::vector<int32_t>{1, 0, 2, 1, 3, 2}));
  EXPECT_EQ(g.configurable_nodes, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(g.node_splits, (std::vector<int64_t>{0, 2, 4}));  // 2 -> node 3 (new 2); 5 -> end
  EXPECT_EQ(g.operands.indices, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(g.users.offsets, (std::vector<int64_t>{0, 1, 2, 3, 3}));
  validate_record(p);
}

TEST(PruneToConfigNeighbourhood, TwoHopsReachSiblingsThroughAnOperand) {
  GraphRecord p = prune_to_config_neighbourhood(chain_record(), 2);
  const Graph& g = p.graph;
  // Kept 0..5 (2 through its operand 0, 5 through 4); node 6 dropped.
  EXPECT_EQ(g.num_nodes, 6);
  EXPECT_EQ(g.opcodes, (std::vector<int32_t>{100, 101, 102, 103, 104, 105}));
  EXPECT_EQ(g.edges, (std::vector<int32_t>{1, 0, 2, 0, 3, 1, 4, 3, 5, 4}));
  EXPECT_EQ(g.configurable_nodes, (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(g.node_splits, (std::vector<int64_t>{0, 2, 5}));
  validate_record(p);
}

TEST(ParsePruneSeeds, NamesAndShorthands) {
  EXPECT_TRUE(parse_prune_seeds("").empty());
  EXPECT_TRUE(parse_prune_seeds("all").empty());
  // TpuGraphs ids: convolution 26, dot 34, reshape 75.
  EXPECT_EQ(parse_prune_seeds("conv-dot-reshape"), (std::vector<int32_t>{26, 34, 75}));
  EXPECT_EQ(parse_prune_seeds("dot,convolution"), (std::vector<int32_t>{34, 26}));
  EXPECT_THROW(parse_prune_seeds("dot,matmul"), Error);
  EXPECT_THROW(parse_prune_seeds("dot,"), Error);
}

TEST(PruneToConfigNeighbourhood, SeedOpcodesKeepEveryConfigurableNode) {
  GraphRecord r = chain_record();
  r.graph.opcodes[3] = 34;  // node 3 is a dot, node 1 (configurable too) is not
  GraphRecord p = prune_to_config_neighbourhood(r, 1, {26, 34, 75});
  const Graph& g = p.graph;
  // Within 1 hop of 3: 1, 3, 4; node 1 is also configurable. Kept 1, 3, 4 -> 0, 1, 2.
  EXPECT_EQ(g.num_nodes, 3);
  EXPECT_EQ(g.opcodes, (std::vector<int32_t>{101, 34, 104}));
  EXPECT_EQ(g.edges, (std::vector<int32_t>{1, 0, 2, 1}));
  EXPECT_EQ(g.configurable_nodes, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(p.configs.layout, r.configs.layout);
  validate_record(p);
  // Node 1 alone as a seed at 2 hops: 1; 0, 3; 2, 4.
  r.graph.opcodes[3] = 103;
  r.graph.opcodes[1] = 26;
  EXPECT_EQ(prune_to_config_neighbourhood(r, 2, {26}).graph.num_nodes, 5);
  // No configurable node has a seed opcode: every configurable node seeds.
  EXPECT_EQ(prune_to_config_neighbourhood(r, 1, {75}).graph.edges,
            prune_to_config_neighbourhood(r, 1).graph.edges);
}

TEST(PruneCollection, PrunesGraphsAndKeepsConfigurationsInPlace) {
  std::vector<GraphRecord> records = {chain_record(), testing::small_layout_record()};
  auto base = std::make_unique<MemoryCollection>(CollectionId::parse("layout:xla:default"),
                                                 "train", records);
  const MemoryCollection* raw = base.get();
  const int8_t* layout0 = raw->configs(0).layout;
  auto pruned = prune_collection(std::move(base), 1);
  ASSERT_EQ(pruned->size(), 2);
  EXPECT_EQ(pruned->graph(0).num_nodes, 4);
  EXPECT_EQ(pruned->graph(0).edges, prune_to_config_neighbourhood(chain_record(), 1).graph.edges);
  EXPECT_EQ(&pruned->graph(0), &pruned->graph(0));  // pruned once
  EXPECT_EQ(pruned->configs(0).layout, layout0);
  EXPECT_EQ(pruned->source(1), "small.npz");
  auto unpruned = std::make_unique<MemoryCollection>(CollectionId::parse("layout:xla:default"),
                                                     "train", records);
  const Collection* same = unpruned.get();
  EXPECT_EQ(prune_collection(std::move(unpruned), -1).get(), same);
}

void expect_same_record(const GraphRecord& a, const GraphRecord& b) {
  EXPECT_EQ(a.graph.name, b.graph.name);
  EXPECT_EQ(a.graph.num_nodes, b.graph.num_nodes);
  EXPECT_EQ(a.graph.feature_width, b.graph.feature_width);
  EXPECT_EQ(a.graph.opcodes, b.graph.opcodes);
  EXPECT_EQ(a.graph.node_features, b.graph.node_features);
  EXPECT_EQ(a.graph.edges, b.graph.edges);
  EXPECT_EQ(a.graph.node_splits, b.graph.node_splits);
  EXPECT_EQ(a.graph.configurable_nodes, b.graph.configurable_nodes);
  EXPECT_EQ(a.graph.operands.offsets, b.graph.operands.offsets);
  EXPECT_EQ(a.graph.operands.indices, b.graph.operands.indices);
  EXPECT_EQ(a.graph.users.offsets, b.graph.users.offsets);
  EXPECT_EQ(a.graph.users.indices, b.graph.users.indices);
  EXPECT_EQ(a.configs.layout, b.configs.layout);
  EXPECT_EQ(a.configs.runtimes, b.configs.runtimes);
  EXPECT_EQ(a.source, b.source);
}

TEST(PruneToConfigNeighbourhood, LargeHopsKeepsTheWholeGraph) {
  expect_same_record(prune_to_config_neighbourhood(chain_record(), 3), chain_record());
  expect_same_record(prune_to_config_neighbourhood(chain_record(), 1000), chain_record());
  // Includes a duplicate edge, which must survive.
  GraphRecord small = testing::small_layout_record();
  expect_same_record(prune_to_config_neighbourhood(small, 5), small);
}

TEST(PruneToConfigNeighbourhood, TileRecordsAndNegativeHopsAreUnchanged) {
  GraphRecord tile = chain_record();
  tile.configs = ConfigTable{};
  tile.configs.kind = ConfigKind::Tile;
  tile.configs.count = 1;
  tile.configs.width = 1;
  tile.configs.tile = {1};
  tile.graph.configurable_nodes.clear();
  expect_same_record(prune_to_config_neighbourhood(tile, 0), tile);
  expect_same_record(prune_to_config_neighbourhood(chain_record(), -1), chain_record());
}

// The real AlexNet layout graph (372 nodes, 597 edges, 26 configurable nodes, splits 0, 324,
// 372). Expected counts from an independent breadth-first search in Python over edge_index:
//   dist = {c: 0 for c in node_config_ids}; queue ...; kept = [v for v in dist if dist[v] <= h]
//   edges kept = both endpoints kept; splits = bisect_left(sorted(kept), s), repeats merged.
// Every node is within 8 hops, so hops 8 keeps the graph identical.
TEST(PruneToConfigNeighbourhood, RealAlexNetGraph) {
  const std::string path =
      std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data absent: " << path;
  const GraphRecord r = io::read_tpugraphs_npz(path);
  struct Expected {
    int hops;
    int64_t nodes, edges;
    std::vector<int64_t> splits;
    int32_t first_configurable;
  };
  const std::vector<Expected> expected = {
      {0, 26, 3, {0, 26}, 0},           {1, 73, 78, {0, 73}, 2},
      {2, 149, 228, {0, 149}, 16},      {3, 227, 362, {0, 226, 227}, 54},
      {5, 342, 527, {0, 296, 342}, 86}, {7, 371, 595, {0, 323, 371}, 86}};
  for (const Expected& e : expected) {
    GraphRecord p = prune_to_config_neighbourhood(r, e.hops);
    EXPECT_EQ(p.graph.num_nodes, e.nodes) << "hops " << e.hops;
    EXPECT_EQ(p.graph.num_edges(), e.edges) << "hops " << e.hops;
    EXPECT_EQ(p.graph.node_splits, e.splits) << "hops " << e.hops;
    EXPECT_EQ(p.graph.configurable_nodes[0], e.first_configurable) << "hops " << e.hops;
    EXPECT_EQ(p.configs.count, r.configs.count);
    validate_record(p);
  }
  expect_same_record(prune_to_config_neighbourhood(r, 8), r);
}

// A random DAG checked against a naive reference: repeated relaxation of undirected distances.
TEST(PruneToConfigNeighbourhood, MatchesNaiveDistancesOnRandomGraphs) {
  Random random(7);
  for (int trial = 0; trial < 20; ++trial) {
    GraphRecord r;
    r.source = "random";
    Graph& g = r.graph;
    g.num_nodes = 5 + static_cast<int64_t>(random.below(40));
    g.feature_width = 1;
    for (int64_t v = 0; v < g.num_nodes; ++v) {
      g.opcodes.push_back(static_cast<int32_t>(v));
      g.node_features.push_back(static_cast<float>(v));
      for (int64_t k = 0; v > 0 && k < 2; ++k) {
        if (random.uniform() < 0.6) {
          g.edges.push_back(static_cast<int32_t>(v));
          g.edges.push_back(static_cast<int32_t>(random.below(v)));
        }
      }
    }
    g.node_splits = {0, g.num_nodes / 3, g.num_nodes / 2, g.num_nodes};
    for (int64_t v = 0; v < g.num_nodes; ++v) {
      if (random.uniform() < 0.1) g.configurable_nodes.push_back(static_cast<int32_t>(v));
    }
    if (g.configurable_nodes.empty()) g.configurable_nodes.push_back(0);
    g.build_adjacency();
    r.configs.kind = ConfigKind::Layout;
    r.configs.count = 1;
    r.configs.nodes = static_cast<int64_t>(g.configurable_nodes.size());
    r.configs.width = 1;
    r.configs.layout.assign(r.configs.nodes, 1);
    const int hops = static_cast<int>(random.below(4));

    const int64_t n = g.num_nodes;
    const int64_t far = n + 1;
    std::vector<int64_t> distance(n, far);
    for (int32_t s : g.configurable_nodes) distance[s] = 0;
    for (int64_t round = 0; round < n; ++round) {
      for (int64_t e = 0; e < g.num_edges(); ++e) {
        const int64_t a = g.edges[2 * e], b = g.edges[2 * e + 1];
        distance[a] = std::min(distance[a], distance[b] + 1);
        distance[b] = std::min(distance[b], distance[a] + 1);
      }
    }
    std::vector<int64_t> expected;
    for (int64_t v = 0; v < n; ++v) {
      if (distance[v] <= hops) expected.push_back(v);
    }
    ASSERT_EQ(nodes_within_hops(g, g.configurable_nodes, hops), expected) << "trial " << trial;

    GraphRecord p = prune_to_config_neighbourhood(r, hops);
    validate_record(p);
    ASSERT_EQ(p.graph.num_nodes, static_cast<int64_t>(expected.size()));
    // Kept nodes keep their features (the original index) in ascending order.
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(p.graph.node_features[i], expected[i]);
    int64_t kept_edges = 0;
    for (int64_t e = 0; e < g.num_edges(); ++e) {
      kept_edges += distance[g.edges[2 * e]] <= hops && distance[g.edges[2 * e + 1]] <= hops;
    }
    EXPECT_EQ(p.graph.num_edges(), kept_edges);
    for (size_t i = 0; i < g.configurable_nodes.size(); ++i) {
      EXPECT_EQ(expected[p.graph.configurable_nodes[i]], g.configurable_nodes[i]);
    }
    std::vector<int64_t> splits;  // kept nodes before each split, repeats merged
    for (int64_t s : g.node_splits) {
      const int64_t before =
          std::count_if(expected.begin(), expected.end(), [s](int64_t v) { return v < s; });
      if (splits.empty() || splits.back() != before) splits.push_back(before);
    }
    EXPECT_EQ(p.graph.node_splits, splits);
  }
}

}  // namespace
}  // namespace graphcost::data
