// Graph Segment Training's partition (Cao et al. 2023): a large graph split into segments of at
// most N nodes, each kept as a graph of its own with only the edges inside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/graph.h"

namespace graphcost::data {

// contiguous: node-index ranges (XLA node order is topological), whole computations of
// node_splits grouped when the graph has them; metis: METIS k-way cut of the undirected graph.
enum class SegmentPartition { Contiguous, Metis };

// "contiguous" or "metis"; anything else is an Error listing the valid names.
SegmentPartition parse_segment_partition(const std::string& name);
std::string segment_partition_name(SegmentPartition partition);

// The node sets of the segments: every node in exactly one, each sorted ascending, none empty,
// none above max_nodes (> 0). Deterministic (METIS runs with a fixed seed). An empty graph has
// no segment.
std::vector<std::vector<int32_t>> partition_graph(const Graph& graph, int64_t max_nodes,
                                                  SegmentPartition partition);

// One segment as a graph of its own.
struct GraphSegment {
  // Nodes renumbered 0.. in the order of `nodes`; the edges with both ends inside (in the
  // parent's edge order); its configurable nodes in the parent's configurable order; no
  // node_splits. Named "<parent>#<segment index>".
  Graph graph;
  std::vector<int32_t> nodes;  // parent node of each segment node
  // For each configurable node of the segment, its position in the parent's configurable_nodes:
  // the configuration columns that belong to the segment.
  std::vector<int64_t> config_columns;
};

// Cuts the listed nodes (distinct, in range) out of graph.
GraphSegment extract_segment(const Graph& graph, const std::vector<int32_t>& nodes,
                             int64_t index = 0);

// partition_graph then extract_segment for each part.
std::vector<GraphSegment> segment_graph(const Graph& graph, int64_t max_nodes,
                                        SegmentPartition partition);

}  // namespace graphcost::data
