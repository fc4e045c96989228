// Tensors for one graph and one slate of its configurations, the model's input.
// A graph's tensors are configuration-independent: built once and shared by every slate.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "data/collection.h"
#include "model/options/model_options.h"

namespace graphcost::model {

// Optional extra node inputs (docs/features.md); everything off by default.
struct GraphFeatureOptions {
  bool minus_one_padding = false;  // layout columns 134-139 -1-padded into node_layout (zeroed in
                                   // node_features)
  bool shape_mod128 = false;       // + 12 columns: x % 128 and x / 128 of shape dims 21-26
  int64_t random_walk_steps = 0;   // + K columns: random-walk positional encodings
  bool virtual_node = false;       // + 1 node consuming every sink, opcode virtual_opcode
  int64_t virtual_opcode = 0;
  bool layout_shapes = false;  // GraphTensors::config_dims from shape dims 21-26
};

// Columns these options append to a graph's node features.
int64_t extra_feature_width(const GraphFeatureOptions& options);

// The graph tensors a model with these options reads (the virtual node's opcode is num_opcodes,
// an embedding row of its own).
GraphFeatureOptions graph_feature_options(const ModelOptions& options);

struct GraphTensors {
  int64_t num_nodes = 0;
  torch::Tensor opcodes;          // [n] int64
  torch::Tensor node_features;    // [n, F] float32, already compressed: sign(x) * log(1 + |x|)
  torch::Tensor operand_offsets;  // [n + 1] int64 CSR: the operands of each node
  torch::Tensor operand_indices;  // [m] int64
  torch::Tensor user_offsets;     // [n + 1] int64 CSR: the users of each node
  torch::Tensor user_indices;     // [m] int64
  torch::Tensor configurable_nodes;  // [nc] int64 (layout), empty for tile
  // [n, 6] float32 in [-1, 5], the -1-padded node layouts; only with minus_one_padding.
  torch::Tensor node_layout;
  // [nc, 3, 6] float32: the shape dims of each configurable node's output, first operand and
  // second operand (zeros where there is none), the tensors its configuration lays out; only
  // with layout_shapes.
  torch::Tensor config_dims;
};

// Builds a graph's tensors (feature compression included), with the extra inputs the options
// ask for: node_features [n, F + extra_feature_width(features)], n + 1 nodes with a virtual node.
// Options that read TpuGraphs columns need F = 140 (an Error otherwise).
GraphTensors make_graph_tensors(const data::Graph& graph,
                                const GraphFeatureOptions& features = {});

// One graph with a slate of S of its configurations.
struct Slate {
  const GraphTensors* graph = nullptr;
  int64_t graph_index = -1;             // index in its collection
  std::vector<int64_t> config_indices;  // S indices into the graph's configurations
  torch::Tensor config_features;        // tile: [S, Fc]; layout: [S, nc, Fc]; float32, raw values
  torch::Tensor runtimes;               // [S] float64; undefined when unknown (test split)
};

// Copies the listed configurations of a graph into a slate's config_features/runtimes.
Slate make_slate(const GraphTensors& graph, const data::ConfigView& configs,
                 const std::vector<int64_t>& config_indices);

}  // namespace graphcost::model
