#include "data/segment.h"

#include <metis.h>

#include <algorithm>

#include "core/error.h"

namespace graphcost::data {

namespace {

const char* kSegmentWhere = "graph segments";

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// [begin, end) cut into ceil(len / max) ranges of nearly equal length.
void append_balanced_ranges(int64_t begin, int64_t end, int64_t max_nodes,
                            std::vector<std::vector<int32_t>>& out) {
  const int64_t length = end - begin;
  const int64_t parts = ceil_div(length, max_nodes);
  for (int64_t p = 0; p < parts; ++p) {
    std::vector<int32_t> nodes;
    for (int64_t v = begin + length * p / parts; v < begin + length * (p + 1) / parts; ++v)
      nodes.push_back(static_cast<int32_t>(v));
    out.push_back(std::move(nodes));
  }
}

std::vector<std::vector<int32_t>> contiguous_partition(const Graph& graph, int64_t max_nodes) {
  const int64_t n = graph.num_nodes;
  std::vector<int64_t> bounds = {0, n};
  for (int64_t s : graph.node_splits)
    if (s > 0 && s < n) bounds.push_back(s);
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::vector<std::vector<int32_t>> out;
  if (bounds.size() == 2) {
    append_balanced_ranges(0, n, max_nodes, out);
    return out;
  }
  // Whole computations are grouped greedily; a computation larger than a segment is cut.
  int64_t open = 0;  // start of the segment being filled
  for (size_t i = 1; i < bounds.size(); ++i) {
    const int64_t begin = bounds[i - 1], end = bounds[i];
    if (end - begin > max_nodes) {
      if (begin > open) append_balanced_ranges(open, begin, max_nodes, out);
      append_balanced_ranges(begin, end, max_nodes, out);
      open = end;
    } else if (end - open > max_nodes) {
      append_balanced_ranges(open, begin, max_nodes, out);
      open = begin;
    }
  }
  if (n > open) append_balanced_ranges(open, n, max_nodes, out);
  return out;
}

std::vector<std::vector<int32_t>> metis_partition(const Graph& graph, int64_t max_nodes) {
  const int64_t n = graph.num_nodes;
  const int64_t parts = ceil_div(n, max_nodes);
  if (parts <= 1) return contiguous_partition(graph, max_nodes);
  // METIS wants a symmetric adjacency without self loops or repeated neighbours.
  std::vector<idx_t> xadj(n + 1, 0), adjncy;
  std::vector<int32_t> neighbours;
  for (int64_t v = 0; v < n; ++v) {
    neighbours.clear();
    for (int64_t k = graph.operands.offsets[v]; k < graph.operands.offsets[v + 1]; ++k)
      neighbours.push_back(graph.operands.indices[k]);
    for (int64_t k = graph.users.offsets[v]; k < graph.users.offsets[v + 1]; ++k)
      neighbours.push_back(graph.users.indices[k]);
    std::sort(neighbours.begin(), neighbours.end());
    neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
    for (int32_t u : neighbours)
      if (u != v) adjncy.push_back(u);
    xadj[v + 1] = static_cast<idx_t>(adjncy.size());
  }
  idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = static_cast<idx_t>(parts), objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 0;
  std::vector<idx_t> part(n, 0);
  const int status = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr,
                                         nullptr, nullptr, &nparts, nullptr, nullptr, options,
                                         &objval, part.data());
  check_data(status == METIS_OK, kSegmentWhere, graph.name,
             "METIS_PartGraphKway failed with status " + std::to_string(status));
  std::vector<std::vector<int32_t>> groups(parts);
  for (int64_t v = 0; v < n; ++v) groups[part[v]].push_back(static_cast<int32_t>(v));
  // METIS allows a few percent of imbalance and may leave a part empty: drop empty parts and cut
  // oversized ones in node order so the bound holds.
  std::vector<std::vector<int32_t>> out;
  for (auto& group : groups) {
    if (group.empty()) continue;
    if (static_cast<int64_t>(group.size()) <= max_nodes) {
      out.push_back(std::move(group));
      continue;
    }
    std::vector<std::vector<int32_t>> ranges;
    append_balanced_ranges(0, static_cast<int64_t>(group.size()), max_nodes, ranges);
    for (const auto& range : ranges) {
      std::vector<int32_t> nodes;
      for (int32_t i : range) nodes.push_back(group[i]);
      out.push_back(std::move(nodes));
    }
  }
  return out;
}

}  // namespace

SegmentPartition parse_segment_partition(const std::string& name) {
  if (name == "contiguous") return SegmentPartition::Contiguous;
  if (name == "metis") return SegmentPartition::Metis;
  throw Error(kSegmentWhere, "partition",
              "unknown partition \"" + name + "\" (valid: contiguous, metis)");
}

std::string segment_partition_name(SegmentPartition partition) {
  return partition == SegmentPartition::Metis ? "metis" : "contiguous";
}

std::vector<std::vector<int32_t>> partition_graph(const Graph& graph, int64_t max_nodes,
                                                  SegmentPartition partition) {
  check_data(max_nodes > 0, kSegmentWhere, "max_nodes", "must be positive");
  if (graph.num_nodes == 0) return {};
  check_data(static_cast<int64_t>(graph.operands.offsets.size()) == graph.num_nodes + 1, kSegmentWhere,
             graph.name, "adjacency not built (call build_adjacency)");
  return partition == SegmentPartition::Metis ? metis_partition(graph, max_nodes)
                                              : contiguous_partition(graph, max_nodes);
}

GraphSegment extract_segment(const Graph& graph, const std::vector<int32_t>& nodes,
                             int64_t index) {
  GraphSegment segment;
  segment.nodes = nodes;
  std::vector<int32_t> local(graph.num_nodes, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int32_t v = nodes[i];
    check_data(v >= 0 && v < graph.num_nodes && local[v] < 0, kSegmentWhere, graph.name,
               "segment nodes must be distinct and in range");
    local[v] = static_cast<int32_t>(i);
  }
  Graph& g = segment.graph;
  g.name = graph.name + "#" + std::to_string(index);
  g.num_nodes = static_cast<int64_t>(nodes.size());
  g.feature_width = graph.feature_width;
  g.opcodes.reserve(nodes.size());
  g.node_features.reserve(nodes.size() * graph.feature_width);
  for (int32_t v : nodes) {
    g.opcodes.push_back(graph.opcodes[v]);
    g.node_features.insert(g.node_features.end(), graph.features(v),
                           graph.features(v) + graph.feature_width);
  }
  for (int64_t e = 0; e < graph.num_edges(); ++e) {
    const int32_t a = graph.edges[2 * e], b = graph.edges[2 * e + 1];
    check_data(a >= 0 && a < graph.num_nodes && b >= 0 && b < graph.num_nodes, kSegmentWhere, graph.name,
               "edge " + std::to_string(e) + " has an end out of range");
    const int32_t consumer = local[a], operand = local[b];
    if (consumer >= 0 && operand >= 0) g.edges.insert(g.edges.end(), {consumer, operand});
  }
  for (size_t k = 0; k < graph.configurable_nodes.size(); ++k) {
    const int32_t v = graph.configurable_nodes[k];
    if (v >= 0 && v < graph.num_nodes && local[v] >= 0) {
      g.configurable_nodes.push_back(local[v]);
      segment.config_columns.push_back(static_cast<int64_t>(k));
    }
  }
  g.build_adjacency();
  return segment;
}

std::vector<GraphSegment> segment_graph(const Graph& graph, int64_t max_nodes,
                                        SegmentPartition partition) {
  std::vector<GraphSegment> out;
  const std::vector<std::vector<int32_t>> parts = partition_graph(graph, max_nodes, partition);
  for (size_t i = 0; i < parts.size(); ++i)
    out.push_back(extract_segment(graph, parts[i], static_cast<int64_t>(i)));
  return out;
}

}  // namespace graphcost::data
