// The options of a cost model (model::Ranker), with defaults next to the fields, and their field
// table (core/option_table.h): config.json's "model" object, the checks and the `train` flags
// all come from it. Plain C++: option code includes this, not model/forward/ranker.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/option_table.h"
#include "data/configs.h"

namespace graphcost::model {

// The precisions of the model's products (model/kernels/precision.h), as the flags that set them
// (train's option table, eval's, predict's and serve's --precision) list them.
constexpr const char* kPrecisionChoices = "fp32,bf16";
// layout_shapes' values: "auto" (the default) is resolved by training to "on" where the option
// applies (layout data with the TpuGraphs 140 node columns, without Graph Segment Training) and
// "off" elsewhere, so a trained model holds "on" or "off"; a model whose options still say
// "auto" (never trained) reads it as "off".
constexpr const char* kLayoutShapesChoices = "auto,on,off";

struct ModelOptions {
  data::ConfigKind kind = data::ConfigKind::Layout;  // from the data
  int64_t node_feature_width = 140;  // from the data
  int64_t config_width = 18;         // from the data
  int64_t num_opcodes = 256;         // opcode ids are < num_opcodes
  int64_t opcode_embedding = 12;
  int64_t node_feature_dim = 20;  // linear compression of the node features
  int64_t config_embedding = 0;   // 0: raw config features fused directly
  // Tile: a configuration column with at most config_one_hot distinct values in the training
  // data is also given one-hot columns over those values (0: off). Tabular records such as
  // Kernel Tuner's are parameters with a few values each, whose effects a signed log of the
  // value alone leaves an MLP to untangle (docs/kernel-tuner.md).
  int64_t config_one_hot = 0;
  // From the data (train::resolve_model_options), when config_one_hot > 0: per configuration
  // column, its distinct training values in increasing order, or none where it has more than
  // config_one_hot. Empty: not one-hot encoded.
  std::vector<std::vector<double>> config_values;
  // GraphSAGE output widths, one per layer (268,109 parameters for layout:xla with the defaults).
  std::vector<int64_t> hidden = {146, 146, 146, 146};
  double dropout = 0.0;                   // after every layer; shared by a slate at unreached nodes
  std::string activation = "leaky_relu";  // leaky_relu, relu, gelu, silu or tanh
  // Graph Segment Training (docs/gst.md): a whole graph is scored as the sum of its segments of
  // at most segment_nodes nodes (0: the whole graph at once), cut by segment_partition
  // ("contiguous" or "metis"). Read by score_configs and validation, not by forward(). Set by
  // training from its gst_segment_nodes and gst_partition (train/options.h), not by a flag.
  int64_t segment_nodes = 0;
  std::string segment_partition = "contiguous";
  // Extra node inputs (docs/features.md), built into GraphTensors by make_graph_tensors:
  bool minus_one_padding = false;  // node layout columns one-hot like the configurations
  bool shape_mod128 = false;       // x % 128 and x / 128 of the shape dims
  // Layout: each configured tensor's two minor dims and its (8, 128)-tile padding under the
  // configured layout, as configuration inputs (config_encoding.h): "auto", "on" or "off"
  // (kLayoutShapesChoices; uses_layout_shapes says whether a model has them).
  std::string layout_shapes = "auto";
  int64_t random_walk_steps = 0;   // random-walk positional encodings, 0 = off
  bool virtual_node = false;       // a virtual output node fed by every sink
  // Architecture options (docs/model-architecture.md); the defaults give the model above.
  std::string architecture = "sage";  // "sage", or "mlp": node features + configuration (tile)
  std::string head = "score";         // "score", or "pairwise": P(a faster than b), ranked by wins
  int64_t pairwise_references = 64;   // pairwise: configurations each one is compared with
  bool attention = false;             // cross-configuration attention over the slate
  double attention_temperature = 0.5;  // its temperature's initial value
  bool graph_norm = false;  // GraphNorm after every SAGE layer (forces the dense forward)
};

// Whether a model with these options gives layout_shapes' columns (layout_shapes "on").
bool uses_layout_shapes(const ModelOptions& options);
// layout_shapes "auto" resolved for a model of options' kind and node_feature_width and its
// segment_nodes: "on" for layout data with the TpuGraphs 140 node columns, without segments;
// "off" otherwise. "on" and "off" are kept as given.
std::string resolved_layout_shapes(const ModelOptions& options);

// Every field of ModelOptions: JSON key, flag (empty for the fields the data or the training
// options set), help, check.
OptionTable<ModelOptions> model_option_fields();

// True when `name` is one of leaky_relu, relu, gelu, silu, tanh (model/layers/activation.h).
bool is_activation_name(const std::string& name);

// Checks every field (model_option_fields' checks); the first bad one is an Error
// "model options: <key>: <problem>".
void check_model_options(const ModelOptions& options);

// Layout values v in [-1, 5] are one-hot encoded over {-1, ..., 5} per column (7 columns each),
// so -1 ("default layout") is a category of its own, unrelated to 0; a separate "is configured"
// column is 1 at the configurable nodes and 0 elsewhere. Tile values pass through sign(x) *
// log(1 + |x|), followed by the one-hot columns of config_values. With layout_shapes, a layout
// configuration also gives kLayoutShapeColumns columns (config_encoding.h). Width of one node's
// configuration input for these options:
int64_t config_input_width(const ModelOptions& options);

// layout_shapes' columns: per laid-out tensor (output, input, kernel), log(1 + the minor-most
// dim), log(1 + the second-minor dim) and log2 of its padding to (8, 128) tiles.
constexpr int64_t kLayoutShapeColumns = 9;
// Columns a tile configuration has before the optional config_embedding: config_width plus one
// per value in config_values.
int64_t tile_encoded_width(const ModelOptions& options);

void to_json(nlohmann::json& j, const ModelOptions& options);
// Reads the keys present over the current values; an unknown key or a wrong type is an Error
// "model options: <key>: <problem>". Values are checked by check_model_options.
void from_json(const nlohmann::json& j, ModelOptions& options);

}  // namespace graphcost::model
