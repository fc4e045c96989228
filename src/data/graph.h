// The in-memory computation graph every source format becomes: opcodes, node features,
// edges and CSR adjacency in both directions, computation boundaries, configurable nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphcost::data {

// Compressed sparse rows: the neighbours of node v are indices[offsets[v] .. offsets[v+1]).
struct Csr {
  std::vector<int64_t> offsets;  // num_nodes + 1 entries
  std::vector<int32_t> indices;

  int64_t degree(int64_t node) const { return offsets[node + 1] - offsets[node]; }
};

// Opcode ids are below this: TpuGraphs files hold them as uint8 (graphcost's HLO table, in
// data/hlo_opcodes.h, is a subset), and the models' opcode embeddings have this many rows by
// default. A file with a larger id is refused where it is read.
constexpr int32_t kOpcodeIdLimit = 256;

struct Graph {
  std::string name;  // file stem, e.g. "alexnet_train_batch_32"
  int64_t num_nodes = 0;
  int64_t feature_width = 0;              // node feature columns (140 in the release)
  std::vector<int32_t> opcodes;           // num_nodes
  std::vector<float> node_features;       // num_nodes * feature_width, row-major
  std::vector<int32_t> edges;             // 2 * num_edges: pairs [consumer, operand]
  std::vector<int64_t> node_splits;       // first node of each computation (may be empty)
  std::vector<int32_t> configurable_nodes;  // layout: node_config_ids; tile: empty

  Csr operands;  // per node: the nodes whose outputs it consumes
  Csr users;     // per node: the nodes that consume its output

  int64_t num_edges() const { return static_cast<int64_t>(edges.size() / 2); }
  const float* features(int64_t node) const { return node_features.data() + node * feature_width; }
  // Rebuilds operands and users from edges (duplicates kept, order by edge index).
  void build_adjacency();
};

}  // namespace graphcost::data
