#include "model/layers/graph_norm.h"

namespace graphcost::model {

GraphNormImpl::GraphNormImpl(int64_t width) {
  alpha = register_parameter("alpha", torch::ones({width}));
  gamma = register_parameter("gamma", torch::ones({width}));
  beta = register_parameter("beta", torch::zeros({width}));
}

torch::Tensor GraphNormImpl::forward(const torch::Tensor& x) {
  const torch::Tensor centred = x - alpha * x.mean(0, /*keepdim=*/true);
  const torch::Tensor variance = centred.pow(2).mean(0, /*keepdim=*/true);
  return gamma * centred / torch::sqrt(variance + kEpsilon) + beta;
}

}  // namespace graphcost::model
