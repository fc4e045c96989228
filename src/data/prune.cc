#include "data/prune.h"

#include <algorithm>
#include <cassert>
#include <mutex>

#include "core/error.h"
#include "data/hlo_opcodes.h"

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

std::vector<int32_t> parse_prune_seeds(const std::string& spec) {
  if (spec.empty() || spec == "all") return {};
  const std::string names = spec == "conv-dot-reshape" ? "convolution,dot,reshape" : spec;
  std::vector<int32_t> ids;
  size_t begin = 0;
  while (begin <= names.size()) {
    const size_t end = std::min(names.find(',', begin), names.size());
    const std::string name = names.substr(begin, end - begin);
    const int32_t id = hlo_opcode_id(name);
    check_data(id != 0, "prune seeds", name,
               "not an HLO opcode name (valid specs: all, conv-dot-reshape, or opcode names "
               "separated by commas, e.g. convolution,dot)");
    ids.push_back(id);
    begin = end + 1;
  }
  return ids;
}

std::vector<int32_t> prune_seed_nodes(const Graph& graph, const std::vector<int32_t>& seed_opcodes) {
  if (seed_opcodes.empty()) return graph.configurable_nodes;
  std::vector<int32_t> seeds;
  for (int32_t v : graph.configurable_nodes) {
    check_data(v >= 0 && v < graph.num_nodes, graph.name, "node_config_ids",
               "node " + std::to_string(v) + " outside the graph");
    if (std::find(seed_opcodes.begin(), seed_opcodes.end(), graph.opcodes[v]) != seed_opcodes.end())
      seeds.push_back(v);
  }
  return seeds.empty() ? graph.configurable_nodes : seeds;
}

Graph prune_graph(const Graph& g, int hops, const std::vector<int32_t>& seed_opcodes) {
  if (hops < 0 || g.configurable_nodes.empty()) return g;
  std::vector<int64_t> kept = nodes_within_hops(g, prune_seed_nodes(g, seed_opcodes), hops);
  if (!seed_opcodes.empty()) {
    // Every configurable node stays, seed or not: configurations name them all.
    kept.insert(kept.end(), g.configurable_nodes.begin(), g.configurable_nodes.end());
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  }
  std::vector<int32_t> new_index(g.num_nodes, -1);
  for (size_t i = 0; i < kept.size(); ++i) new_index[kept[i]] = static_cast<int32_t>(i);

  Graph p;
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
  return p;
}

GraphRecord prune_to_config_neighbourhood(const GraphRecord& record, int hops,
                                          const std::vector<int32_t>& seed_opcodes) {
  if (record.configs.kind != ConfigKind::Layout || hops < 0 ||
      record.graph.configurable_nodes.empty()) {
    return record;
  }
  GraphRecord out;
  out.configs = record.configs;
  out.source = record.source;
  out.duplicates_merged = record.duplicates_merged;
  out.graph = prune_graph(record.graph, hops, seed_opcodes);
  return out;
}

namespace {

class PrunedCollection : public Collection {
 public:
  PrunedCollection(std::unique_ptr<Collection> base, int hops, std::vector<int32_t> seed_opcodes)
      : base_(std::move(base)),
        hops_(hops),
        seed_opcodes_(std::move(seed_opcodes)),
        graphs_(new LazyGraph[base_->size()]) {}
  const CollectionId& id() const override { return base_->id(); }
  const std::string& split() const override { return base_->split(); }
  int64_t size() const override { return base_->size(); }
  const Graph& graph(int64_t g) const override {
    LazyGraph& lazy = graphs_[g];
    std::call_once(lazy.once,
                   [&] { lazy.graph = prune_graph(base_->graph(g), hops_, seed_opcodes_); });
    return lazy.graph;
  }
  ConfigView configs(int64_t g) const override { return base_->configs(g); }
  const std::string& source(int64_t g) const override { return base_->source(g); }

 private:
  struct LazyGraph {
    std::once_flag once;
    Graph graph;
  };
  std::unique_ptr<Collection> base_;
  int hops_;
  std::vector<int32_t> seed_opcodes_;
  std::unique_ptr<LazyGraph[]> graphs_;
};

}  // namespace

std::unique_ptr<Collection> prune_collection(std::unique_ptr<Collection> base, int hops,
                                             const std::vector<int32_t>& seed_opcodes) {
  if (hops < 0 || base->id().kind != ConfigKind::Layout) return base;
  return std::make_unique<PrunedCollection>(std::move(base), hops, seed_opcodes);
}

}  // namespace graphcost::data
