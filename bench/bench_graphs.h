// Synthetic inputs shared by the model benchmarks: an XLA-like random layout graph and random
// layout configurations.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>

#include "data/configs.h"
#include "data/graph.h"

namespace graphcost::bench {

// A random DAG shaped like an XLA graph: long chains (each node usually consumes its
// predecessor) plus a few operands from nearby or far-away earlier nodes, about 1.6 per node.
inline data::Graph random_xla_like_graph(int64_t n, int64_t feature_width,
                                         double configurable_fraction, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  data::Graph g;
  g.name = "bench";
  g.num_nodes = n;
  g.feature_width = feature_width;
  std::uniform_int_distribution<int32_t> opcode(0, 255);
  std::lognormal_distribution<float> feature(0.0f, 2.0f);
  for (int64_t v = 0; v < n; ++v) g.opcodes.push_back(opcode(rng));
  for (int64_t k = 0; k < n * feature_width; ++k) {
    g.node_features.push_back(uniform(rng) < 0.7 ? 0.0f : feature(rng));
  }
  for (int32_t v = 1; v < n; ++v) {
    if (uniform(rng) < 0.9) g.edges.insert(g.edges.end(), {v, v - 1});
    for (int extra = 0; extra < 2; ++extra) {
      if (uniform(rng) >= 0.35) continue;
      const int32_t low = uniform(rng) < 0.9 ? std::max(0, v - 500) : 0;
      g.edges.insert(g.edges.end(), {v, std::uniform_int_distribution<int32_t>(low, v - 1)(rng)});
    }
  }
  for (int32_t v = 0; v < n; ++v) {
    if (uniform(rng) < configurable_fraction) g.configurable_nodes.push_back(v);
  }
  g.build_adjacency();
  return g;
}

inline data::ConfigTable random_layouts(int64_t count, int64_t nodes, int64_t width,
                                        uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-1, 5);
  data::ConfigTable t;
  t.kind = data::ConfigKind::Layout;
  t.count = count;
  t.nodes = nodes;
  t.width = width;
  for (int64_t k = 0; k < count * nodes * width; ++k)
    t.layout.push_back(static_cast<int8_t>(value(rng)));
  for (int64_t k = 0; k < count; ++k) t.runtimes.push_back(1.0 + k);
  return t;
}

}  // namespace graphcost::bench
