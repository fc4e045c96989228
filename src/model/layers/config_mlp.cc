#include "model/layers/config_mlp.h"

#include <utility>

#include "model/layers/activation.h"

namespace graphcost::model {

ConfigMlpImpl::ConfigMlpImpl(int64_t node_width, int64_t config_width,
                             const std::vector<int64_t>& hidden, double dropout,
                             std::string activation)
    : dropout_(dropout), activation_(std::move(activation)) {
  int64_t width = node_width + config_width;
  for (size_t l = 0; l < hidden.size(); ++l) {
    layers_.push_back(
        register_module("layer" + std::to_string(l), torch::nn::Linear(width, hidden[l])));
    width = hidden[l];
  }
}

torch::Tensor ConfigMlpImpl::forward(const GraphTensors& graph, const torch::Tensor& configs) {
  const int64_t s = configs.size(0);
  const torch::Tensor nodes = graph.num_nodes > 0
                                  ? graph.node_features.mean(0)
                                  : torch::zeros({graph.node_features.size(1)});
  torch::Tensor x = torch::cat({nodes.unsqueeze(0).expand({s, nodes.size(0)}), configs}, -1);
  for (auto& layer : layers_) {
    x = apply_activation(activation_, layer->forward(x));
    if (dropout_ > 0) x = torch::dropout(x, dropout_, is_training());
  }
  return x;
}

}  // namespace graphcost::model
