// ModelOptions <-> JSON, and the configuration input width the options imply.
#include <set>
#include <string>

#include "core/error.h"
#include "model/ranker.h"

namespace graphcost::model {

namespace {
const char* kWhere = "model options";
}  // namespace

int64_t config_input_width(const ModelOptions& options) {
  if (options.kind == data::ConfigKind::Tile) {
    return options.config_embedding > 0 ? options.config_embedding : options.config_width;
  }
  const int64_t values = options.config_embedding > 0 ? options.config_embedding
                                                      : options.config_width * data::kLayoutValues;
  return values + 1;  // + the "is configured" indicator
}

GraphFeatureOptions graph_feature_options(const ModelOptions& options) {
  GraphFeatureOptions features;
  features.minus_one_padding = options.minus_one_padding;
  features.shape_mod128 = options.shape_mod128;
  features.random_walk_steps = options.random_walk_steps;
  features.virtual_node = options.virtual_node;
  features.virtual_opcode = options.num_opcodes;
  return features;
}

void to_json(nlohmann::json& j, const ModelOptions& options) {
  j = nlohmann::json{{"kind", data::config_kind_name(options.kind)},
                     {"node_feature_width", options.node_feature_width},
                     {"config_width", options.config_width},
                     {"num_opcodes", options.num_opcodes},
                     {"opcode_embedding", options.opcode_embedding},
                     {"node_feature_dim", options.node_feature_dim},
                     {"config_embedding", options.config_embedding},
                     {"hidden", options.hidden},
                     {"dropout", options.dropout},
                     {"activation", options.activation},
                     {"minus_one_padding", options.minus_one_padding},
                     {"shape_mod128", options.shape_mod128},
                     {"random_walk_steps", options.random_walk_steps},
                     {"virtual_node", options.virtual_node},
                     {"architecture", options.architecture},
                     {"head", options.head},
                     {"pairwise_references", options.pairwise_references},
                     {"attention", options.attention},
                     {"attention_temperature", options.attention_temperature},
                     {"graph_norm", options.graph_norm}};
  j["segment_nodes"] = options.segment_nodes;
  j["segment_partition"] = options.segment_partition;
}

void from_json(const nlohmann::json& j, ModelOptions& options) {
  check_data(j.is_object(), kWhere, "", "expected a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const nlohmann::json& value = it.value();
    try {
      if (key == "kind") {
        const std::string kind = value.get<std::string>();
        check_data(kind == "tile" || kind == "layout", kWhere, key,
                   "expected \"tile\" or \"layout\", got \"" + kind + "\"");
        options.kind = kind == "tile" ? data::ConfigKind::Tile : data::ConfigKind::Layout;
      } else if (key == "node_feature_width") {
        options.node_feature_width = value.get<int64_t>();
      } else if (key == "config_width") {
        options.config_width = value.get<int64_t>();
      } else if (key == "num_opcodes") {
        options.num_opcodes = value.get<int64_t>();
      } else if (key == "opcode_embedding") {
        options.opcode_embedding = value.get<int64_t>();
      } else if (key == "node_feature_dim") {
        options.node_feature_dim = value.get<int64_t>();
      } else if (key == "config_embedding") {
        options.config_embedding = value.get<int64_t>();
      } else if (key == "hidden") {
        options.hidden = value.get<std::vector<int64_t>>();
      } else if (key == "dropout") {
        options.dropout = value.get<double>();
      } else if (key == "activation") {
        options.activation = value.get<std::string>();
      } else if (key == "segment_nodes") {
        options.segment_nodes = value.get<int64_t>();
        check_data(options.segment_nodes >= 0, kWhere, key, "must be >= 0 (0: whole graph)");
      } else if (key == "segment_partition") {
        options.segment_partition = value.get<std::string>();
        check_data(options.segment_partition == "contiguous" ||
                       options.segment_partition == "metis",
                   kWhere, key, "expected \"contiguous\" or \"metis\"");
      } else if (key == "minus_one_padding") {
        options.minus_one_padding = value.get<bool>();
      } else if (key == "shape_mod128") {
        options.shape_mod128 = value.get<bool>();
      } else if (key == "random_walk_steps") {
        options.random_walk_steps = value.get<int64_t>();
      } else if (key == "virtual_node") {
        options.virtual_node = value.get<bool>();
      } else if (key == "architecture") {
        options.architecture = value.get<std::string>();
      } else if (key == "head") {
        options.head = value.get<std::string>();
      } else if (key == "pairwise_references") {
        options.pairwise_references = value.get<int64_t>();
      } else if (key == "attention") {
        options.attention = value.get<bool>();
      } else if (key == "attention_temperature") {
        options.attention_temperature = value.get<double>();
      } else if (key == "graph_norm") {
        options.graph_norm = value.get<bool>();
      } else {
        throw Error(kWhere, key, "unknown key");
      }
    } catch (const nlohmann::json::exception& e) {
      throw Error(kWhere, key, std::string("wrong type: ") + e.what());
    }
  }
}

}  // namespace graphcost::model
