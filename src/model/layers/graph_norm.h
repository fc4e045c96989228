// GraphNorm (Cai et al. 2021): per-graph normalisation of node states, one graph per
// configuration. With mean m and variance v over the nodes of one configuration's graph, per
// feature: y = gamma * (x - alpha * m) / sqrt(var(x - alpha * m) + eps) + beta, with learned
// alpha (initialised to 1: instance norm), gamma (1) and beta (0).
#pragma once

#include <torch/torch.h>

namespace graphcost::model {

class GraphNormImpl : public torch::nn::Module {
 public:
  static constexpr double kEpsilon = 1e-5;
  explicit GraphNormImpl(int64_t width);
  // x: [n, S, H] (every node of S configurations of one graph) -> [n, S, H]. One node (n = 1)
  // gives beta wherever alpha = 1: there is nothing to normalise against.
  torch::Tensor forward(const torch::Tensor& x);

  torch::Tensor alpha, gamma, beta;
};
TORCH_MODULE(GraphNorm);

}  // namespace graphcost::model
