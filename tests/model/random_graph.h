// Random test graphs: a DAG with duplicate edges and isolated nodes, fixed seed.
#pragma once

#include <cstdint>
#include <random>

#include "data/graph.h"

namespace graphcost::model::testing {

// num_nodes nodes, num_edges edges from a later node to an earlier one (duplicates likely when
// num_edges is large), the last `isolated` nodes without edges, every `configurable_every`-th
// node configurable (0: none).
inline data::Graph random_graph(int64_t num_nodes, int64_t num_edges, int64_t isolated,
                                int64_t feature_width, int64_t num_opcodes,
                                int64_t configurable_every, uint32_t seed) {
  std::mt19937 rng(seed);
  data::Graph g;
  g.name = "random";
  g.num_nodes = num_nodes;
  g.feature_width = feature_width;
  std::uniform_int_distribution<int32_t> opcode(0, static_cast<int32_t>(num_opcodes - 1));
  std::normal_distribution<float> feature(0.0f, 30.0f);
  for (int64_t v = 0; v < num_nodes; ++v) g.opcodes.push_back(opcode(rng));
  for (int64_t k = 0; k < num_nodes * feature_width; ++k) g.node_features.push_back(feature(rng));
  const int64_t connected = num_nodes - isolated;
  if (connected >= 2) {
    std::uniform_int_distribution<int32_t> node(1, static_cast<int32_t>(connected - 1));
    for (int64_t e = 0; e < num_edges; ++e) {
      const int32_t consumer = node(rng);
      std::uniform_int_distribution<int32_t> earlier(0, consumer - 1);
      g.edges.push_back(consumer);
      g.edges.push_back(earlier(rng));
    }
  }
  if (configurable_every > 0) {
    for (int64_t v = 0; v < num_nodes; v += configurable_every) {
      g.configurable_nodes.push_back(static_cast<int32_t>(v));
    }
  }
  g.build_adjacency();
  return g;
}

// A long chain with short skips, like real XLA graphs (node v reads v - 1, and v - 3 when v is a
// multiple of 7): a configuration's reach grows slowly, so layers after the first run by their
// change. Nodes first, first + every, ... are configurable.
inline data::Graph chain_graph(int32_t num_nodes, int32_t first, int32_t every) {
  data::Graph graph = random_graph(num_nodes, 0, 0, 5, 10, 0, 3);
  for (int32_t v = 1; v < num_nodes; ++v) {
    graph.edges.insert(graph.edges.end(), {v, v - 1});
    if (v % 7 == 0) graph.edges.insert(graph.edges.end(), {v, v - 3});
  }
  for (int32_t v = first; v < num_nodes; v += every) graph.configurable_nodes.push_back(v);
  graph.build_adjacency();
  return graph;
}

}  // namespace graphcost::model::testing
