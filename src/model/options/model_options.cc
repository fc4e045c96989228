// ModelOptions' field table, and the configuration input width the options imply.
#include "model/options/model_options.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "data/input_features.h"

namespace graphcost::model {

namespace {

const char* kModelOptionsWhere = "model options";

using M = ModelOptions;

// The kind is stored by its name ("tile" or "layout").
nlohmann::json get_kind(const M& o) { return data::config_kind_name(o.kind); }
void set_kind(const nlohmann::json& value, M& o) {
  std::string kind;
  read_option_value(value, kind, kModelOptionsWhere, "kind");
  check_data(kind == "tile" || kind == "layout", kModelOptionsWhere, "kind",
             "expected \"tile\" or \"layout\", got \"" + kind + "\"");
  o.kind = kind == "tile" ? data::ConfigKind::Tile : data::ConfigKind::Layout;
}

nlohmann::json get_config_values(const M& o) { return o.config_values; }
void set_config_values(const nlohmann::json& value, M& o) {
  const std::string expected = "expected an array of arrays of numbers";
  check_data(value.is_array(), kModelOptionsWhere, "config_values", expected);
  std::vector<std::vector<double>> columns;
  for (const nlohmann::json& column : value) {
    check_data(column.is_array(), kModelOptionsWhere, "config_values", expected);
    std::vector<double> values;
    for (const nlohmann::json& v : column) {
      check_data(v.is_number(), kModelOptionsWhere, "config_values", expected);
      values.push_back(v.get<double>());
    }
    columns.push_back(std::move(values));
  }
  o.config_values = std::move(columns);
}

std::string positive(int64_t value) { return value > 0 ? "" : "must be positive"; }

const OptionField<M> kFields[] = {
    {"kind", "", OptionAccessor<M>{get_kind, set_kind}, "Configuration kind (from the data)"},
    {"node_feature_width", "", &M::node_feature_width, "Node feature columns (from the data)",
     [](const M& o) { return positive(o.node_feature_width); }},
    {"config_width", "", &M::config_width, "Configuration columns (from the data)",
     [](const M& o) { return positive(o.config_width); }},
    {"num_opcodes", "--num-opcodes", &M::num_opcodes, "Opcode ids are below this",
     [](const M& o) { return positive(o.num_opcodes); }},
    {"opcode_embedding", "--opcode-embedding", &M::opcode_embedding, "Opcode embedding width",
     [](const M& o) { return positive(o.opcode_embedding); }},
    {"node_feature_dim", "--node-feature-dim", &M::node_feature_dim,
     "Width of the compressed node features",
     [](const M& o) { return positive(o.node_feature_dim); }},
    {"config_embedding", "--config-embedding", &M::config_embedding,
     "Configuration embedding width (0: raw features)",
     [](const M& o) { return std::string(o.config_embedding >= 0 ? "" : "must be >= 0"); }},
    {"config_one_hot", "--config-one-hot", &M::config_one_hot,
     "Tile: one-hot each configuration column with at most this many distinct training values, "
     "besides its value (0: off)",
     [](const M& o) { return std::string(o.config_one_hot >= 0 ? "" : "must be >= 0"); }},
    {"config_values", "", OptionAccessor<M>{get_config_values, set_config_values},
     "Per tile configuration column, the values one-hot encoded (from the data)",
     [](const M& o) {
       if (o.config_values.empty()) return std::string();
       if (static_cast<int64_t>(o.config_values.size()) != o.config_width)
         return "has " + std::to_string(o.config_values.size()) + " columns, config_width is " +
                std::to_string(o.config_width);
       for (const std::vector<double>& values : o.config_values)
         if (!std::is_sorted(values.begin(), values.end()) ||
             std::adjacent_find(values.begin(), values.end()) != values.end())
           return std::string("each column's values must be increasing");
       return std::string();
     }},
    {"hidden", "--hidden", &M::hidden, "GraphSAGE layer widths",
     [](const M& o) {
       if (o.hidden.empty()) return std::string("needs at least one layer");
       for (int64_t h : o.hidden)
         if (h <= 0) return std::string("widths must be positive");
       return std::string();
     }},
    {"dropout", "--dropout", &M::dropout, "Dropout probability",
     [](const M& o) {
       return std::string(o.dropout >= 0.0 && o.dropout < 1.0 ? "" : "must be in [0, 1)");
     }},
    {"activation", "--activation", &M::activation, "Activation function",
     [](const M& o) {
       return is_activation_name(o.activation)
                  ? std::string()
                  : "unknown activation \"" + o.activation +
                        "\" (valid: leaky_relu, relu, gelu, silu, tanh)";
     }},
    // Set by training from gst_segment_nodes and gst_partition (train/options.h).
    {"segment_nodes", "", &M::segment_nodes, "Nodes per segment (0: whole graph)",
     [](const M& o) {
       return std::string(o.segment_nodes >= 0 ? "" : "must be >= 0 (0: whole graph)");
     }},
    {"segment_partition", "", &M::segment_partition, "How graphs are cut into segments",
     [](const M& o) {
       return std::string(o.segment_partition == "contiguous" || o.segment_partition == "metis"
                              ? ""
                              : "expected \"contiguous\" or \"metis\"");
     }},
    {"minus_one_padding", "--minus-one-padding", &M::minus_one_padding,
     "Node layout columns 134-139 -1-padded and one-hot like the configurations"},
    {"shape_mod128", "--shape-mod128", &M::shape_mod128,
     "Add x % 128 and x / 128 of the shape dims as node features"},
    {"layout_shapes", "--layout-shapes", &M::layout_shapes,
     "Layout: give each configured tensor's two minor dims and its padding to (8, 128) tiles "
     "under the configuration's layout as configuration inputs (from the shapes of the node and "
     "its operands); auto: on for layout data with the TpuGraphs 140 node columns, without "
     "Graph Segment Training",
     [](const M& o) {
       return std::string(o.layout_shapes != "on" || o.kind == data::ConfigKind::Layout
                              ? ""
                              : "applies to layout configurations, not tile");
     },
     false, kLayoutShapesChoices},
    {"random_walk_steps", "--random-walk-steps,--rw-steps", &M::random_walk_steps,
     "Random-walk positional encodings of 1..K steps (0: off)",
     [](const M& o) { return std::string(o.random_walk_steps >= 0 ? "" : "must be >= 0"); }},
    {"virtual_node", "--virtual-node", &M::virtual_node,
     "Add a virtual output node fed by every sink"},
    {"architecture", "--architecture,--arch", &M::architecture,
     "Architecture: sage, or mlp (graph-level tile configurations)",
     [](const M& o) {
       if (o.architecture != "sage" && o.architecture != "mlp")
         return "unknown architecture \"" + o.architecture + "\" (valid: sage, mlp)";
       return std::string(o.architecture != "mlp" || o.kind == data::ConfigKind::Tile
                              ? ""
                              : "mlp needs graph-level (tile) configurations");
     }},
    {"head", "--head", &M::head, "Head: score, or pairwise (P(a faster than b), ranked by wins)",
     [](const M& o) {
       return o.head == "score" || o.head == "pairwise"
                  ? std::string()
                  : "unknown head \"" + o.head + "\" (valid: score, pairwise)";
     }},
    {"pairwise_references", "--pairwise-references", &M::pairwise_references,
     "Pairwise head: configurations each one is compared with at inference",
     [](const M& o) { return positive(o.pairwise_references); }},
    {"attention", "--attention", &M::attention, "Cross-configuration attention over the slate"},
    {"attention_temperature", "--attention-temperature", &M::attention_temperature,
     "Initial temperature of the attention",
     [](const M& o) { return std::string(o.attention_temperature > 0 ? "" : "must be positive"); }},
    {"graph_norm", "--graph-norm", &M::graph_norm,
     "GraphNorm after every SAGE layer (dense forward)",
     [](const M& o) {
       return std::string(o.architecture != "mlp" || !o.graph_norm
                              ? ""
                              : "applies to the SAGE layers, not to architecture mlp");
     }},
};

}  // namespace

OptionTable<ModelOptions> model_option_fields() { return kFields; }

bool is_activation_name(const std::string& name) {
  return name == "leaky_relu" || name == "relu" || name == "gelu" || name == "silu" ||
         name == "tanh";
}

void check_model_options(const ModelOptions& options) {
  check_option_fields(model_option_fields(), options, kModelOptionsWhere);
}

int64_t tile_encoded_width(const ModelOptions& options) {
  int64_t width = options.config_width;
  for (const std::vector<double>& values : options.config_values)
    width += static_cast<int64_t>(values.size());
  return width;
}

int64_t config_input_width(const ModelOptions& options) {
  if (options.kind == data::ConfigKind::Tile) {
    return options.config_embedding > 0 ? options.config_embedding : tile_encoded_width(options);
  }
  const int64_t values = options.config_embedding > 0 ? options.config_embedding
                                                      : options.config_width * data::kLayoutValues;
  // + the tensors' minor dims and padding (layout_shapes), + the "is configured" indicator
  return values + (uses_layout_shapes(options) ? kLayoutShapeColumns : 0) + 1;
}

bool uses_layout_shapes(const ModelOptions& options) { return options.layout_shapes == "on"; }

std::string resolved_layout_shapes(const ModelOptions& options) {
  if (options.layout_shapes != "auto") return options.layout_shapes;
  const bool applies = options.kind == data::ConfigKind::Layout &&
                       options.node_feature_width == data::kTpuGraphsFeatureWidth &&
                       options.segment_nodes == 0;
  return applies ? "on" : "off";
}

void to_json(nlohmann::json& j, const ModelOptions& options) {
  j = nlohmann::json::object();
  write_option_fields(j, model_option_fields(), options);
}

void from_json(const nlohmann::json& j, ModelOptions& options) {
  // Runs before layout_shapes took "auto" stored it as a bool: read as "on" or "off".
  const bool old_bool =
      j.is_object() && j.contains("layout_shapes") && j.at("layout_shapes").is_boolean();
  nlohmann::json upgraded;
  if (old_bool) {
    upgraded = j;
    upgraded["layout_shapes"] = j.at("layout_shapes").get<bool>() ? "on" : "off";
  }
  read_option_fields(model_option_fields(), old_bool ? upgraded : j, options, kModelOptionsWhere);
}

}  // namespace graphcost::model
