#include "model/forward/graph_tensors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"
#include "data/input_features.h"
#include "model/kernels/tensor_from.h"

namespace graphcost::model {

namespace {

void check_csr(const data::Csr& csr, int64_t num_nodes, const std::string& where,
               const std::string& name) {
  check_data(static_cast<int64_t>(csr.offsets.size()) == num_nodes + 1, where, name,
             "CSR offsets must have num_nodes + 1 entries (call build_adjacency)");
  check_data(csr.offsets.back() == static_cast<int64_t>(csr.indices.size()), where, name,
             "CSR offsets do not end at the number of indices");
  // Per index: test first, build the message only on failure.
  for (int32_t v : csr.indices) {
    if (v < 0 || v >= num_nodes) throw Error(where, name, "neighbour index out of range");
  }
}

}  // namespace

GraphFeatureOptions graph_feature_options(const ModelOptions& options) {
  GraphFeatureOptions features;
  features.minus_one_padding = options.minus_one_padding;
  features.shape_mod128 = options.shape_mod128;
  features.random_walk_steps = options.random_walk_steps;
  features.virtual_node = options.virtual_node;
  features.virtual_opcode = options.num_opcodes;
  features.layout_shapes = uses_layout_shapes(options);
  return features;
}

int64_t extra_feature_width(const GraphFeatureOptions& options) {
  return (options.shape_mod128 ? 12 : 0) + std::max<int64_t>(0, options.random_walk_steps);
}

namespace {

float signed_log(float x) { return std::copysign(std::log1p(std::fabs(x)), x); }

GraphTensors tensors_of(const data::Graph& graph) {
  const std::string where = graph.name.empty() ? "graph" : graph.name;
  const int64_t n = graph.num_nodes;
  GraphTensors t;
  t.num_nodes = n;
  t.opcodes = tensor_from(graph.opcodes);
  t.operand_offsets = tensor_from(graph.operands.offsets);
  t.operand_indices = tensor_from(graph.operands.indices);
  t.user_offsets = tensor_from(graph.users.offsets);
  t.user_indices = tensor_from(graph.users.indices);
  for (int32_t v : graph.configurable_nodes) {
    if (v < 0 || v >= n) throw Error(where, "configurable_nodes", "node index out of range");
  }
  t.configurable_nodes = tensor_from(graph.configurable_nodes);
  return t;
}

}  // namespace

GraphTensors make_graph_tensors(const data::Graph& graph, const GraphFeatureOptions& options) {
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
  const bool tpugraphs_columns =
      options.minus_one_padding || options.shape_mod128 || options.layout_shapes;
  check_data(
      !tpugraphs_columns || graph.feature_width == data::kTpuGraphsFeatureWidth, where,
      "node_features",
      "minus_one_padding, shape_mod128 and layout_shapes read the TpuGraphs columns and need " +
          std::to_string(data::kTpuGraphsFeatureWidth) + " node features, not " +
          std::to_string(graph.feature_width));
  check_data(options.random_walk_steps >= 0, where, "random_walk_steps", "must be >= 0");

  GraphTensors t = options.virtual_node ? tensors_of(data::with_virtual_output_node(
                                              graph, static_cast<int32_t>(options.virtual_opcode)))
                                        : tensors_of(graph);
  const int64_t f = graph.feature_width, width = f + extra_feature_width(options);
  const int64_t steps = options.random_walk_steps;
  // The virtual node, when there is one, is the last row and keeps all-zero features.
  t.node_features = torch::zeros({t.num_nodes, width}, torch::kFloat);
  float* out = t.node_features.data_ptr<float>();
  std::vector<float> walks;
  if (steps > 0) walks = data::random_walk_diagonals(graph, steps);
  if (options.minus_one_padding) t.node_layout = torch::full({t.num_nodes, 6}, -1.0f);
  float* layout = options.minus_one_padding ? t.node_layout.data_ptr<float>() : nullptr;
  for (int64_t v = 0; v < n; ++v) {
    const float* raw = graph.features(v);
    float* row = out + v * width;
    // Raw XLA features span many orders of magnitude (shapes, byte counts): a signed log keeps
    // them in a range a linear layer can use.
    for (int64_t c = 0; c < f; ++c) row[c] = signed_log(raw[c]);
    if (layout) {
      const std::array<float, 6> padded = data::minus_one_padded_layout(raw);
      for (int64_t k = 0; k < 6; ++k) {
        if (!(padded[k] >= -1 && padded[k] <= 5 && padded[k] == std::floor(padded[k])))
          throw Error(where, "node_features",
                      "node " + std::to_string(v) + ": minor_to_major value " +
                          std::to_string(padded[k]) + " is not an integer in [0, 5]");
        layout[v * 6 + k] = padded[k];
        row[data::kMinorToMajorColumn + k] = 0;  // carried by node_layout instead
      }
    }
    int64_t c = f;
    if (options.shape_mod128) {
      for (float x : data::shape_mod128(raw)) row[c++] = signed_log(x);
    }
    for (int64_t k = 0; k < steps; ++k) row[c++] = walks[v * steps + k];
  }
  if (options.layout_shapes) {
    // The tensors a layout configuration lays out: the node's output, then its first two
    // operands (edge order), as node features 21-26 give their shapes.
    const int64_t nc = static_cast<int64_t>(graph.configurable_nodes.size());
    t.config_dims = torch::zeros({nc, 3, 6}, torch::kFloat);
    float* dims = t.config_dims.data_ptr<float>();
    for (int64_t k = 0; k < nc; ++k) {
      const int32_t v = graph.configurable_nodes[k];
      const int64_t first = graph.operands.offsets[v], end = graph.operands.offsets[v + 1];
      const int32_t tensors[3] = {v, end > first ? graph.operands.indices[first] : -1,
                                  end > first + 1 ? graph.operands.indices[first + 1] : -1};
      for (int tensor = 0; tensor < 3; ++tensor) {
        if (tensors[tensor] < 0) continue;
        std::memcpy(dims + (k * 3 + tensor) * 6,
                    graph.features(tensors[tensor]) + data::kShapeDimsColumn, 6 * sizeof(float));
      }
    }
  }
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
    if (j < 0 || j >= configs.count)
      throw Error(where, "config_indices",
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
