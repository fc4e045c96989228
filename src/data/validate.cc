#include "data/validate.h"

#include <cmath>
#include <unordered_set>

#include "core/error.h"

namespace graphcost::data {

namespace {
// A layout value names a dimension of a rank <= 6 tensor, or is -1 for "none".
constexpr int kLayoutValueMin = -1;
constexpr int kLayoutValueMax = 5;
}  // namespace

void validate_record(const GraphRecord& record) {
  const Graph& g = record.graph;
  const ConfigTable& t = record.configs;
  const std::string& file = record.source;
  // The table's own sizes first: validate_graph reads through a view that trusts them.
  check_data(static_cast<int64_t>(g.opcodes.size()) == g.num_nodes, file, "node_opcode",
             "expected " + std::to_string(g.num_nodes) + " opcodes, got " +
                 std::to_string(g.opcodes.size()));
  check_data(static_cast<int64_t>(g.node_features.size()) == g.num_nodes * g.feature_width, file,
             "node_feat", "size does not match nodes x feature width");
  if (t.kind == ConfigKind::Layout) {
    check_data(t.nodes == static_cast<int64_t>(g.configurable_nodes.size()), file,
               "node_config_feat",
               "configures " + std::to_string(t.nodes) + " nodes but node_config_ids lists " +
                   std::to_string(g.configurable_nodes.size()));
    check_data(static_cast<int64_t>(t.layout.size()) == t.count * t.nodes * t.width, file,
               "node_config_feat", "size does not match configs x nodes x width");
  } else {
    check_data(static_cast<int64_t>(t.tile.size()) == t.count * t.width, file, "config_feat",
               "size does not match configs x width");
  }
  check_data(t.failed.empty() || static_cast<int64_t>(t.failed.size()) == t.count, file, "failed",
             "expected " + std::to_string(t.count) + " failed flags, got " +
                 std::to_string(t.failed.size()));
  check_data(t.runtimes.empty() || static_cast<int64_t>(t.runtimes.size()) == t.count, file,
             "config_runtime",
             "expected " + std::to_string(t.count) + " runtimes, got " +
                 std::to_string(t.runtimes.size()));
  validate_graph(g, t.view(), file);
}

void validate_graph(const Graph& g, const ConfigView& t, const std::string& file) {
  const int64_t n = g.num_nodes;
  check_data(n > 0, file, "node_feat", "graph has no nodes");
  check_data(static_cast<int64_t>(g.opcodes.size()) == n, file, "node_opcode",
             "expected " + std::to_string(n) + " opcodes, got " + std::to_string(g.opcodes.size()));
  check_data(static_cast<int64_t>(g.node_features.size()) == n * g.feature_width, file, "node_feat",
             "size does not match nodes x feature width");
  for (size_t i = 0; i < g.node_features.size(); ++i) {
    if (!std::isfinite(g.node_features[i])) {
      throw Error(file, "node_feat",
                  "non-finite value at node " + std::to_string(i / g.feature_width) + ", column " +
                      std::to_string(i % g.feature_width));
    }
  }
  for (size_t v = 0; v < g.opcodes.size(); ++v) {
    const int32_t op = g.opcodes[v];
    if (op < 0 || op >= kOpcodeIdLimit)
      throw Error(file, "node_opcode",
                  "node " + std::to_string(v) + " has opcode " + std::to_string(op) +
                      ", outside [0, " + std::to_string(kOpcodeIdLimit) +
                      ") (TpuGraphs opcode ids; unknown opcodes are 0)");
  }
  check_data(g.edges.size() % 2 == 0, file, "edge_index", "odd number of endpoints");
  for (size_t i = 0; i < g.edges.size(); ++i) {
    if (g.edges[i] < 0 || g.edges[i] >= n) {
      throw Error(file, "edge_index",
                  "edge " + std::to_string(i / 2) + " names node " + std::to_string(g.edges[i]) +
                      ", outside [0, " + std::to_string(n) + ")");
    }
  }
  for (size_t i = 0; i < g.node_splits.size(); ++i) {
    int64_t s = g.node_splits[i];
    check_data(s >= 0 && s <= n, file, "node_splits",
               "split " + std::to_string(s) + " outside [0, " + std::to_string(n) + "]");
    check_data(i == 0 || s >= g.node_splits[i - 1], file, "node_splits", "splits not ascending");
  }
  std::unordered_set<int32_t> seen;
  for (int32_t id : g.configurable_nodes) {
    check_data(id >= 0 && id < n, file, "node_config_ids",
               "node id " + std::to_string(id) + " outside [0, " + std::to_string(n) + ")");
    check_data(seen.insert(id).second, file, "node_config_ids",
               "node id " + std::to_string(id) + " appears twice");
  }
  check_data(t.count > 0, file, "config_runtime", "no configurations");
  if (t.kind == ConfigKind::Layout) {
    check_data(t.nodes == static_cast<int64_t>(g.configurable_nodes.size()), file,
               "node_config_feat",
               "configures " + std::to_string(t.nodes) + " nodes but node_config_ids lists " +
                   std::to_string(g.configurable_nodes.size()));
    const int64_t values = t.count * t.nodes * t.width;
    for (int64_t i = 0; i < values; ++i) {
      const int v = t.layout[i];
      if (v < kLayoutValueMin || v > kLayoutValueMax) {
        const int64_t per_config = t.nodes * t.width;
        throw Error(file, "node_config_feat",
                    "configuration " + std::to_string(i / per_config) + ", configurable node " +
                        std::to_string(i % per_config / t.width) + " has layout value " +
                        std::to_string(v) + " (must be in [-1, 5])");
      }
    }
  } else {
    const int64_t values = t.count * t.width;
    for (int64_t i = 0; i < values; ++i) {
      check_data(std::isfinite(t.tile[i]), file, "config_feat",
                 "non-finite value in configuration " + std::to_string(i / t.width));
    }
  }
  check_data(t.default_config >= -1 && t.default_config < t.count, file, "default_config",
             "index " + std::to_string(t.default_config) + " outside [-1, " +
                 std::to_string(t.count) + ")");
  if (t.failed != nullptr) {
    for (int64_t j = 0; j < t.count; ++j) {
      check_data(t.failed[j] <= 1, file, "failed",
                 "configuration " + std::to_string(j) + " has flag " +
                     std::to_string(t.failed[j]) + " (must be 0 or 1)");
    }
  }
  if (t.runtimes != nullptr) {
    for (int64_t j = 0; j < t.count; ++j) {
      if (!(std::isfinite(t.runtimes[j]) && t.runtimes[j] > 0)) {
        throw Error(file, "config_runtime",
                    "configuration " + std::to_string(j) + " has runtime " +
                        std::to_string(t.runtimes[j]) + " (must be finite and positive)");
      }
    }
  }
}

}  // namespace graphcost::data
