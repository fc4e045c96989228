// The default cost model (after the 2nd-place TpuGraphs solution): opcode embedding, compressed
// node features through a linear layer, configuration features fused early at every node (tile:
// broadcast; layout: at the configurable nodes, -1 kept distinct from 0), a stack of GraphSAGE
// layers (mean over operands, mean over users, concatenated with the node's own state; residual
// where widths match), a per-node scalar head, summed over nodes: one score per configuration.
// A score is a predicted cost: lower means faster.
#pragma once

#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/configs.h"
#include "model/config_reach.h"
#include "model/graph_tensors.h"

namespace graphcost::model {

struct ModelOptions {
  data::ConfigKind kind = data::ConfigKind::Layout;
  int64_t node_feature_width = 140;  // from the data
  int64_t config_width = 18;         // from the data
  int64_t num_opcodes = 256;         // opcode ids are < num_opcodes
  int64_t opcode_embedding = 12;
  int64_t node_feature_dim = 20;  // linear compression of the node features
  int64_t config_embedding = 0;   // 0: raw config features fused directly
  // GraphSAGE output widths, one per layer (268,109 parameters for layout:xla with the defaults).
  std::vector<int64_t> hidden = {146, 146, 146, 146};
  double dropout = 0.0;                   // after every layer; shared by a slate at unreached nodes
  std::string activation = "leaky_relu";  // leaky_relu, relu, gelu, silu or tanh
  // Graph Segment Training (docs/gst.md): a whole graph is scored as the sum of its segments of
  // at most segment_nodes nodes (0: the whole graph at once), cut by segment_partition
  // ("contiguous" or "metis"). Read by score_configs and validation, not by forward().
  int64_t segment_nodes = 0;
  std::string segment_partition = "contiguous";
  // Extra node inputs (docs/features.md), built into GraphTensors by make_graph_tensors:
  bool minus_one_padding = false;  // node layout columns one-hot like the configurations
  bool shape_mod128 = false;       // x % 128 and x / 128 of the shape dims
  int64_t random_walk_steps = 0;   // random-walk positional encodings, 0 = off
  bool virtual_node = false;       // a virtual output node fed by every sink
};

// The graph tensors a model with these options reads (the virtual node's opcode is num_opcodes,
// an embedding row of its own).
GraphFeatureOptions graph_feature_options(const ModelOptions& options);

// Layout values v in [-1, 5] are one-hot encoded over {-1, ..., 5} per column (7 columns each),
// so -1 ("default layout") is a category of its own, unrelated to 0; a separate "is configured"
// column is 1 at the configurable nodes and 0 elsewhere. Tile values pass through sign(x) *
// log(1 + |x|). Width of one node's configuration input for these options:
int64_t config_input_width(const ModelOptions& options);

void to_json(nlohmann::json& j, const ModelOptions& options);
// Reads options; unknown keys or wrong types are an Error naming the key.
void from_json(const nlohmann::json& j, ModelOptions& options);

class RankerImpl : public torch::nn::Module {
 public:
  explicit RankerImpl(const ModelOptions& options);
  // Scores of the slate's configurations: [S]. Nodes further than num_layers hops from every
  // configurable node are computed once for the whole slate (see config_reach.h).
  // with_constant = false leaves out their head terms, the same for every configuration of the
  // graph: the scores shift by one constant per graph, which shift-invariant (ranking) losses
  // do not see, and the last layer's configuration-independent pass is skipped.
  torch::Tensor forward(const Slate& slate, bool with_constant = true);
  // The same scores computed naively, every node for every configuration: the reference that
  // tests compare forward() against.
  torch::Tensor forward_dense(const Slate& slate);
  // Per-configuration input of each node: tile [S, Cc]; layout [S, nc, Cc] (configurable nodes
  // only; every other node's configuration input is zero).
  torch::Tensor encode_configs(const Slate& slate);
  const ModelOptions& options() const { return options_; }
  int64_t parameter_count() const;

 private:
  const GraphTensors& check_slate(const Slate& slate) const;
  torch::Tensor node_state(const GraphTensors& graph);  // [n, C1], configuration-independent
  torch::Tensor sage_layer(size_t layer, const torch::Tensor& self, const torch::Tensor& operands,
                           const torch::Tensor& users);
  torch::Tensor activate(const torch::Tensor& x) const;
  // Layer 1 for layout slates; replaces shared by its layer-1 state, returns the reached rows.
  torch::Tensor first_layout_layer(const ConfigReachPlan& plan, const GraphTensors& graph,
                                   const torch::Tensor& independent, const torch::Tensor& configs,
                                   torch::Tensor& shared);
  static constexpr int64_t kInferenceChunk = 16;  // configurations per chunk without gradients

  ModelOptions options_;
  torch::nn::Embedding opcode_embedding_{nullptr};
  torch::nn::Linear node_linear_{nullptr};
  torch::nn::Linear config_linear_{nullptr};  // only when options.config_embedding > 0
  std::vector<torch::nn::Linear> layers_;
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(Ranker);

// Saves options (as JSON) and weights in one LibTorch archive, written atomically.
void save_model(Ranker& model, const std::string& path);
// Loads a model saved by save_model; a missing or malformed file is an Error naming it.
Ranker load_model(const std::string& path);

}  // namespace graphcost::model
