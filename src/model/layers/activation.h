// The activation functions a ModelOptions.activation may name.
#pragma once

#include <torch/torch.h>

#include <string>

#include "model/options/model_options.h"  // is_activation_name

namespace graphcost::model {

// Applies the named activation (one of is_activation_name's; anything else is tanh).
inline torch::Tensor apply_activation(const std::string& name, const torch::Tensor& x) {
  if (name == "leaky_relu") return torch::leaky_relu(x, 0.01);
  if (name == "relu") return torch::relu(x);
  if (name == "gelu") return torch::gelu(x);
  if (name == "silu") return torch::silu(x);
  return torch::tanh(x);
}

}  // namespace graphcost::model
