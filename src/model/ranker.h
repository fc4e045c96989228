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
#include "model/graph_tensors.h"

namespace graphcost::model {

struct ModelOptions {
  data::ConfigKind kind = data::ConfigKind::Layout;
  int64_t node_feature_width = 140;  // from the data
  int64_t config_width = 18;         // from the data
  int64_t num_opcodes = 256;         // opcode ids are < num_opcodes
  int64_t opcode_embedding = 12;
  int64_t node_feature_dim = 20;     // linear compression of the node features
  int64_t config_embedding = 0;      // 0: raw config features fused directly
  std::vector<int64_t> hidden = {128, 128, 128, 128};  // GraphSAGE output widths, one per layer
  double dropout = 0.0;
  std::string activation = "leaky_relu";
};

void to_json(nlohmann::json& j, const ModelOptions& options);
// Reads options; unknown keys or wrong types are an Error naming the key.
void from_json(const nlohmann::json& j, ModelOptions& options);

class RankerImpl : public torch::nn::Module {
 public:
  explicit RankerImpl(const ModelOptions& options);
  // Scores of the slate's configurations: [S].
  torch::Tensor forward(const Slate& slate);
  const ModelOptions& options() const { return options_; }
  int64_t parameter_count() const;

 private:
  ModelOptions options_;
  // (layers defined in ranker.cc)
};
TORCH_MODULE(Ranker);

}  // namespace graphcost::model
