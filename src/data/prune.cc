#include "data/prune.h"

#include <algorithm>
#include <cassert>

#include "core/error.h"

namespace graphcost::data {

std::vector<int64_t> nodes_within_hops(const Graph& graph, const std::vector<int32_t>& seeds,
                                       int hops) {
  const int64_t n = graph.num_nodes;
  std::vector<int32_t> distance(n, -1);
  std::vector<int64_t> frontier;
  for (int32_t s : seeds) {
    check_data(s >= 0 && s < n, graph.name, "node_config_ids",
               "seed node " + std::to_string(s) + " outside [0, " + std::to_string(n) + ")");
    if (distance[s] < 0) {
      distance[s] = 0;
      frontier.push_back(s);
    }
  }
  if (hops > 0) {
    // Adjacency is an invariant of a loaded graph, not something input data can break.
    assert(static_cast<int64_t>(graph.operands.offsets.size()) == n + 1);
    assert(static_cast<int64_t>(graph.users.offsets.size()) == n + 1);
  }
  // Breadth-first, one level per hop.
  for (int level = 1; level <= hops && !frontier.empty(); ++level) {
    std::vector<int64_t> next;
    for (int64_t v : frontier) {
      for (const Csr* csr : {&graph.operands, &graph.users}) {
        for (int64_t k = csr->offsets[v]; k < csr->offsets[v + 1]; ++k) {
          const int32_t u = csr->indices[k];
          if (distance[u] < 0) {
            distance[u] = level;
            next.push_back(u);
          }
        }
      }
    }
    frontier.swap(next);
  }
  std::vector<int64_t> kept;
  for (int64_t v = 0; v < n; ++v) {
    if (distance[v] >= 0) kept.push_back(v);
  }
  return kept;
}

GraphRecord prune_to_config_neighbourhood(const GraphRecord& record, int hops) {
  const Graph& g = record.graph;
  if (record.configs.kind != ConfigKind::Layout || hops < 0 || g.configurable_nodes.empty()) {
    return record;
  }
  const std::vector<int64_t> kept = nodes_within_hops(g, g.configurable_nodes, hops);
  std::vector<int32_t> new_index(g.num_nodes, -1);
  for (size_t i = 0; i < kept.size(); ++i) new_index[kept[i]] = static_cast<int32_t>(i);

  GraphRecord out;
  out.configs = record.configs;
  out.source = record.source;
  out.duplicates_merged = record.duplicates_merged;
  Graph& p = out.graph;
  p.name = g.name;
  p.num_nodes = static_cast<int64_t>(kept.size());
  p.feature_width = g.feature_width;
  p.opcodes.reserve(kept.size());
  p.node_features.reserve(kept.size() * g.feature_width);
  for (int64_t v : kept) {
    p.opcodes.push_back(g.opcodes[v]);
    p.node_features.insert(p.node_features.end(), g.features(v), g.features(v) + g.feature_width);
  }
  for (int64_t e = 0; e < g.num_edges(); ++e) {
    const int32_t consumer = new_index[g.edges[2 * e]];
    const int32_t operand = new_index[g.edges[2 * e + 1]];
    if (consumer >= 0 && operand >= 0) {
      p.edges.push_back(consumer);
      p.edges.push_back(operand);
    }
  }
  for (int64_t s : g.node_splits) {
    // The number of kept nodes before s: the new index of the first kept node at or after s,
    // or the new node count when none is (the released files end their splits with n, an end
    // boundary that must survive).
    const int64_t first = std::lower_bound(kept.begin(), kept.end(), s) - kept.begin();
    if (p.node_splits.empty() || p.node_splits.back() != first) p.node_splits.push_back(first);
  }
  p.configurable_nodes.reserve(g.configurable_nodes.size());
  for (int32_t v : g.configurable_nodes) p.configurable_nodes.push_back(new_index[v]);
  p.build_adjacency();
  return out;
}

}  // namespace graphcost::data
