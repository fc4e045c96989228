#include "data/graph.h"

namespace graphcost::data {

namespace {
// Counting sort of edges by one endpoint into CSR form.
Csr build_csr(int64_t num_nodes, const std::vector<int32_t>& edges, int key_side) {
  Csr csr;
  csr.offsets.assign(num_nodes + 1, 0);
  const int64_t m = static_cast<int64_t>(edges.size() / 2);
  for (int64_t e = 0; e < m; ++e) ++csr.offsets[edges[2 * e + key_side] + 1];
  for (int64_t v = 0; v < num_nodes; ++v) csr.offsets[v + 1] += csr.offsets[v];
  csr.indices.resize(m);
  std::vector<int64_t> cursor(csr.offsets.begin(), csr.offsets.end() - 1);
  for (int64_t e = 0; e < m; ++e) {
    csr.indices[cursor[edges[2 * e + key_side]]++] = edges[2 * e + 1 - key_side];
  }
  return csr;
}
}  // namespace

void Graph::build_adjacency() {
  operands = build_csr(num_nodes, edges, 0);
  users = build_csr(num_nodes, edges, 1);
}

}  // namespace graphcost::data
