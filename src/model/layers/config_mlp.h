// Architecture "mlp": for tuning records without a real graph (a Kernel Tuner cache is one node
// with graph-level tile configurations). Input per configuration: the mean of the graph's
// (compressed) node features, which for one node are its features (the device's columns,
// problem size), concatenated with the encoded configuration; then Linear + activation + dropout per
// width of `hidden`. The output, [S, hidden.back()], is the configuration's embedding.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "model/forward/graph_tensors.h"

namespace graphcost::model {

class ConfigMlpImpl : public torch::nn::Module {
 public:
  // node_width: F; config_width: the encoded configuration's width.
  ConfigMlpImpl(int64_t node_width, int64_t config_width, const std::vector<int64_t>& hidden,
                double dropout, std::string activation);
  // configs: [S, Cc] encoded -> [S, hidden.back()]. A graph without nodes contributes zeros.
  torch::Tensor forward(const GraphTensors& graph, const torch::Tensor& configs);

 private:
  std::vector<torch::nn::Linear> layers_;
  double dropout_;
  std::string activation_;
};
TORCH_MODULE(ConfigMlp);

}  // namespace graphcost::model
