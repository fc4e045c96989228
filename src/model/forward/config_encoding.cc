#include "model/forward/config_encoding.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace graphcost::model {

using data::kLayoutValues;

torch::Tensor signed_log(const torch::Tensor& x) {
  return torch::sign(x) * torch::log1p(torch::abs(x));
}

// Written out rather than torch::one_hot, which scans its input twice for the range and then
// scatters into a 64-bit tensor converted afterwards: about 7% of a --prune 1 training step.
torch::Tensor one_hot_layout(const torch::Tensor& values) {
  const torch::Tensor in = values.to(torch::kFloat).contiguous();
  std::vector<int64_t> shape = in.sizes().vec();
  shape.back() *= kLayoutValues;
  torch::Tensor out = torch::zeros(shape, torch::kFloat);
  const float* v = in.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    const auto k = static_cast<int64_t>(v[i] + 1.0f);  // -1 (absent) is class 0
    if (k < 0 || k >= kLayoutValues) {
      throw Error("model", "layout value",
                  std::to_string(v[i]) + " is outside -1.." + std::to_string(kLayoutValues - 2));
    }
    o[i * kLayoutValues + k] = 1.0f;
  }
  return out;
}

torch::Tensor encode_configs(const torch::Tensor& c, data::ConfigKind kind,
                             torch::nn::Linear& config_linear,
                             const std::vector<torch::Tensor>& tile_values) {
  if (kind == data::ConfigKind::Tile) {
    torch::Tensor x = signed_log(c);
    if (!tile_values.empty()) {
      std::vector<torch::Tensor> parts = {x};
      for (size_t j = 0; j < tile_values.size(); ++j) {
        if (tile_values[j].numel() == 0) continue;
        const torch::Tensor column = c.select(-1, static_cast<int64_t>(j)).unsqueeze(-1);
        parts.push_back(column.eq(tile_values[j]).to(torch::kFloat));
      }
      x = torch::cat(parts, -1);
    }
    return config_linear ? config_linear->forward(x) : x;
  }
  const int64_t s = c.size(0), nc = c.size(1);
  if (c.numel() > 0) {
    const float low = c.min().item<float>(), high = c.max().item<float>();
    check_data(low >= -1 && high <= 5, "ranker", "config_features",
               "layout values must lie in [-1, 5], found " + std::to_string(low < -1 ? low : high));
  }
  torch::Tensor x = one_hot_layout(c);
  if (config_linear) x = config_linear->forward(x);
  return torch::cat({x, torch::ones({s, nc, 1})}, -1);
}

}  // namespace graphcost::model
