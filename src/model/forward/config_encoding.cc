#include "model/forward/config_encoding.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/input_features.h"
#include "model/options/model_options.h"

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

torch::Tensor layout_shape_columns(const torch::Tensor& configs, const torch::Tensor& config_dims) {
  const int64_t s = configs.size(0), nc = configs.size(1), width = configs.size(2);
  check_data(width == 18 && config_dims.dim() == 3 && config_dims.size(0) == nc &&
                 config_dims.size(1) == 3 && config_dims.size(2) == 6,
             "ranker", "config_dims",
             "layout_shapes needs 18 values per configurable node and [nc, 3, 6] tensor dims");
  const torch::Tensor c = configs.contiguous(), d = config_dims.contiguous();
  const float* values = c.data_ptr<float>();
  const float* dims = d.data_ptr<float>();
  torch::Tensor out = torch::zeros({s, nc, kLayoutShapeColumns}, torch::kFloat);
  float* o = out.data_ptr<float>();
  auto roundup = [](double x, double to) { return std::ceil(x / to) * to; };
  for (int64_t k = 0; k < nc; ++k) {
    for (int64_t t = 0; t < 3; ++t) {
      const float* dk = dims + (k * 3 + t) * 6;
      const auto rank = static_cast<int>(data::shape_rank(dk));
      if (rank == 0) continue;
      for (int64_t i = 0; i < s; ++i) {
        const float* layout = values + (i * nc + k) * 18 + t * 6;
        int m0 = static_cast<int>(layout[0]), m1 = static_cast<int>(layout[1]);
        if (m0 < 0) m0 = rank - 1, m1 = rank - 2;  // the default layout
        if (m1 < 0 && rank >= 2) m1 = m0 == rank - 1 ? rank - 2 : rank - 1;
        if (m0 >= rank || m1 >= rank) continue;  // not a layout of this tensor
        const double d0 = dk[m0], d1 = rank >= 2 ? dk[m1] : 1.0;
        if (d0 <= 0 || d1 <= 0) continue;  // no elements, nothing padded
        const double padded = roundup(d0, 128) * (rank >= 2 ? roundup(d1, 8) : 1.0);
        float* row = o + (i * nc + k) * kLayoutShapeColumns + t * 3;
        row[0] = static_cast<float>(std::log1p(d0));
        row[1] = static_cast<float>(std::log1p(d1));
        row[2] = static_cast<float>(std::log2(padded / (d0 * d1)));
      }
    }
  }
  return out;
}

torch::Tensor encode_configs(const torch::Tensor& c, data::ConfigKind kind,
                             torch::nn::Linear& config_linear,
                             const std::vector<torch::Tensor>& tile_values,
                             const torch::Tensor& config_dims) {
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
  if (config_dims.defined())
    return torch::cat({x, layout_shape_columns(c, config_dims), torch::ones({s, nc, 1})}, -1);
  return torch::cat({x, torch::ones({s, nc, 1})}, -1);
}

}  // namespace graphcost::model
