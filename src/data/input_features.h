// Optional extra node inputs computed from a graph (plain C++; the model's tensors are built from
// them in model/forward/graph_tensors.cc). See docs/features.md.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "data/graph.h"

namespace graphcost::data {

// TpuGraphs node feature columns these read (docs formats.md): shape dims 0..5 and the layout's
// minor_to_major 0..5. Both need the release's 140 columns.
constexpr int64_t kShapeDimsColumn = 21;
constexpr int64_t kMinorToMajorColumn = 134;
constexpr int64_t kTpuGraphsFeatureWidth = 140;

// A tensor's rank from its 6 shape dims (columns 21-26 of a row, or any 6 dims in that order):
// one past the last non-zero dim, so a zero-sized dim before a non-zero one still counts (such a
// tensor has no elements) and 0 means a scalar or no tensor.
int64_t shape_rank(const float* dims);

// The node's layout (columns 134-139) with absent dimensions as -1 instead of 0, the convention
// of the layout configurations: dims 0..rank-1 keep their value, the rest become -1. The rank is
// shape_rank of the shape dims (columns 21-26), raised to one past the largest
// minor_to_major entry when that is larger (so only a zero-sized vector reads as a scalar). row
// holds kTpuGraphsFeatureWidth values.
std::array<float, 6> minus_one_padded_layout(const float* row);
// The inverse, back to the release's encoding (-1 -> 0): raw == unpad(pad(raw)) for every row
// the release can hold.
std::array<float, 6> unpadded_layout(const std::array<float, 6>& padded);

// x % 128 then floor(x / 128) of each of the 6 shape dims: 12 values (TPU tiles are 128 wide,
// so the remainder tells how much of the last tile is wasted).
std::array<float, 12> shape_mod128(const float* row);

// Random-walk positional encodings (Dwivedi et al. 2022): for every node i and k = 1..steps,
// (P^k)_ii with P = D^-1 A the random-walk matrix of the undirected simple graph (edges in either
// direction, duplicates and self-loops dropped); an isolated node gets zeros. Row-major
// [num_nodes, steps]. Needs graph.operands and graph.users (build_adjacency).
std::vector<float> random_walk_diagonals(const Graph& graph, int64_t steps);

// A copy of graph with one more node, the virtual output node: opcode `opcode`, all-zero
// features, consuming every sink (every node without users). Its index is graph.num_nodes.
Graph with_virtual_output_node(const Graph& graph, int32_t opcode);

}  // namespace graphcost::data
