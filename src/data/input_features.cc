#include "data/input_features.h"

#include <algorithm>
#include <cmath>

namespace graphcost::data {

int64_t shape_rank(const float* dims) {
  int64_t rank = 0;
  for (int64_t k = 0; k < 6; ++k) {
    if (dims[k] != 0) rank = k + 1;
  }
  return rank;
}

std::array<float, 6> minus_one_padded_layout(const float* row) {
  int64_t rank = shape_rank(row + kShapeDimsColumn);
  for (int64_t k = 0; k < 6; ++k) {
    // A permutation of 0..rank-1 holds rank-1 as its largest entry (a 0 says nothing: it is
    // also what absent entries hold).
    const float entry = row[kMinorToMajorColumn + k];
    if (entry > 0) rank = std::max<int64_t>(rank, static_cast<int64_t>(entry) + 1);
  }
  std::array<float, 6> out;
  for (int64_t k = 0; k < 6; ++k) out[k] = k < rank ? row[kMinorToMajorColumn + k] : -1.0f;
  return out;
}

std::array<float, 6> unpadded_layout(const std::array<float, 6>& padded) {
  std::array<float, 6> out;
  for (size_t k = 0; k < 6; ++k) out[k] = padded[k] < 0 ? 0.0f : padded[k];
  return out;
}

std::array<float, 12> shape_mod128(const float* row) {
  std::array<float, 12> out;
  for (int64_t k = 0; k < 6; ++k) {
    const double x = row[kShapeDimsColumn + k];
    out[k] = static_cast<float>(std::fmod(x, 128.0));
    out[6 + k] = static_cast<float>(std::floor(x / 128.0));
  }
  return out;
}

std::vector<float> random_walk_diagonals(const Graph& graph, int64_t steps) {
  const int64_t n = graph.num_nodes;
  std::vector<float> out(static_cast<size_t>(n * std::max<int64_t>(steps, 0)), 0.0f);
  if (steps <= 0 || n == 0) return out;
  // Undirected simple neighbour lists.
  std::vector<std::vector<int32_t>> neighbours(n);
  for (int64_t v = 0; v < n; ++v) {
    auto& list = neighbours[v];
    for (const Csr* csr : {&graph.operands, &graph.users}) {
      for (int64_t e = csr->offsets[v]; e < csr->offsets[v + 1]; ++e) {
        if (csr->indices[e] != v) list.push_back(csr->indices[e]);
      }
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  // One walk distribution per start node, kept sparse: after k steps it covers only the k-hop
  // ball, so the cost is the sum of the balls' edges rather than n times the graph.
  std::vector<double> current(n, 0.0), next(n, 0.0);
  std::vector<int32_t> support, next_support;
  std::vector<char> in_next(n, 0);
  for (int64_t start = 0; start < n; ++start) {
    support.assign(1, static_cast<int32_t>(start));
    current[start] = 1.0;
    for (int64_t k = 1; k <= steps; ++k) {
      next_support.clear();
      for (int32_t u : support) {
        const double p = current[u];
        current[u] = 0.0;
        if (neighbours[u].empty()) continue;
        const double share = p / static_cast<double>(neighbours[u].size());
        for (int32_t w : neighbours[u]) {
          if (!in_next[w]) {
            in_next[w] = 1;
            next_support.push_back(w);
          }
          next[w] += share;
        }
      }
      for (int32_t w : next_support) in_next[w] = 0;
      out[start * steps + (k - 1)] = static_cast<float>(next[start]);
      std::swap(current, next);
      std::swap(support, next_support);
    }
    for (int32_t u : support) current[u] = 0.0;
  }
  return out;
}

Graph with_virtual_output_node(const Graph& graph, int32_t opcode) {
  Graph out = graph;
  const int32_t virtual_node = static_cast<int32_t>(graph.num_nodes);
  for (int64_t v = 0; v < graph.num_nodes; ++v) {
    if (graph.users.degree(v) == 0) {
      out.edges.push_back(virtual_node);
      out.edges.push_back(static_cast<int32_t>(v));
    }
  }
  out.num_nodes = graph.num_nodes + 1;
  out.opcodes.push_back(opcode);
  out.node_features.resize(out.node_features.size() + graph.feature_width, 0.0f);
  out.build_adjacency();
  return out;
}

}  // namespace graphcost::data
