#include "model/graph_tensors.h"

#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"

namespace graphcost::model {

namespace {

torch::Tensor to_int64_tensor(const std::vector<int32_t>& values) {
  torch::Tensor t = torch::empty({static_cast<int64_t>(values.size())}, torch::kLong);
  int64_t* out = t.data_ptr<int64_t>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

torch::Tensor to_int64_tensor(const std::vector<int64_t>& values) {
  torch::Tensor t = torch::empty({static_cast<int64_t>(values.size())}, torch::kLong);
  if (!values.empty())
    std::memcpy(t.data_ptr<int64_t>(), values.data(), values.size() * sizeof(int64_t));
  return t;
}

void check_csr(const data::Csr& csr, int64_t num_nodes, const std::string& where,
               const std::string& name) {
  check_data(static_cast<int64_t>(csr.offsets.size()) == num_nodes + 1, where, name,
             "CSR offsets must have num_nodes + 1 entries (call build_adjacency)");
  check_data(csr.offsets.back() == static_cast<int64_t>(csr.indices.size()), where, name,
             "CSR offsets do not end at the number of indices");
  for (int32_t v : csr.indices) {
    check_data(v >= 0 && v < num_nodes, where, name, "neighbour index out of range");
  }
}

}  // namespace

GraphTensors make_graph_tensors(const data::Graph& graph) {
  const std::string where = graph.name.empty() ? "graph" : graph.name;
  const int64_t n = graph.num_nodes;
  check_data(n >= 0, where, "num_nodes", "negative node count");
  check_data(static_cast<int64_t>(graph.opcodes.size()) == n, where, "opcodes",
             "expected one opcode per node");
  check_data(static_cast<int64_t>(graph.node_features.size()) == n * graph.feature_width, where,
             "node_features", "expected num_nodes * feature_width values");
  check_csr(graph.operands, n, where, "operands");
  check_csr(graph.users, n, where, "users");
  check_data(graph.operands.indices.size() == graph.users.indices.size(), where, "users",
             "operands and users must hold the same edges");

  GraphTensors t;
  t.num_nodes = n;
  t.opcodes = to_int64_tensor(graph.opcodes);
  t.node_features = torch::empty({n, graph.feature_width}, torch::kFloat);
  float* features = t.node_features.data_ptr<float>();
  // Raw XLA features span many orders of magnitude (shapes, byte counts): a signed log keeps
  // them in a range a linear layer can use.
  for (size_t i = 0; i < graph.node_features.size(); ++i) {
    const float x = graph.node_features[i];
    features[i] = std::copysign(std::log1p(std::fabs(x)), x);
  }
  t.operand_offsets = to_int64_tensor(graph.operands.offsets);
  t.operand_indices = to_int64_tensor(graph.operands.indices);
  t.user_offsets = to_int64_tensor(graph.users.offsets);
  t.user_indices = to_int64_tensor(graph.users.indices);
  for (int32_t v : graph.configurable_nodes) {
    check_data(v >= 0 && v < n, where, "configurable_nodes", "node index out of range");
  }
  t.configurable_nodes = to_int64_tensor(graph.configurable_nodes);
  return t;
}

Slate make_slate(const GraphTensors& graph, const data::ConfigView& configs,
                 const std::vector<int64_t>& config_indices) {
  const std::string where = "make_slate";
  Slate slate;
  slate.graph = &graph;
  slate.config_indices = config_indices;
  const int64_t s = static_cast<int64_t>(config_indices.size());
  for (int64_t j : config_indices) {
    check_data(j >= 0 && j < configs.count, where, "config_indices",
               "configuration " + std::to_string(j) + " out of range [0, " +
                   std::to_string(configs.count) + ")");
  }
  if (configs.kind == data::ConfigKind::Tile) {
    check_data(configs.tile != nullptr || s == 0, where, "tile", "no tile configurations");
    slate.config_features = torch::empty({s, configs.width}, torch::kFloat);
    float* out = slate.config_features.data_ptr<float>();
    for (int64_t i = 0; i < s; ++i) {
      std::memcpy(out + i * configs.width, configs.tile_config(config_indices[i]),
                  configs.width * sizeof(float));
    }
  } else {
    check_data(configs.nodes == graph.configurable_nodes.size(0), where, "layout",
               "configurations cover " + std::to_string(configs.nodes) +
                   " nodes but the graph has " + std::to_string(graph.configurable_nodes.size(0)) +
                   " configurable nodes");
    check_data(configs.layout != nullptr || s == 0 || configs.nodes * configs.width == 0, where,
               "layout", "no layout configurations");
    const int64_t stride = configs.nodes * configs.width;
    slate.config_features = torch::empty({s, configs.nodes, configs.width}, torch::kFloat);
    float* out = slate.config_features.data_ptr<float>();
    for (int64_t i = 0; i < s; ++i) {
      const int8_t* in = configs.layout_config(config_indices[i]);
      for (int64_t k = 0; k < stride; ++k) out[i * stride + k] = static_cast<float>(in[k]);
    }
  }
  if (configs.has_runtimes()) {
    slate.runtimes = torch::empty({s}, torch::kDouble);
    double* out = slate.runtimes.data_ptr<double>();
    for (int64_t i = 0; i < s; ++i) out[i] = configs.runtimes[config_indices[i]];
  }
  return slate;
}

}  // namespace graphcost::model
