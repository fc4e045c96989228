// How configuration values become model inputs (the encoding ranker.h describes): tile values
// through sign(x) * log(1 + |x|); layout values in [-1, 5] one-hot over their
// data::kLayoutValues values per column, so -1 ("default layout") is a category of its own,
// followed by an "is configured" column of ones (the nodes that have no configuration get zeros
// there, as everywhere else). An optional linear layer (ModelOptions::config_embedding) maps the
// encoded values before the indicator is appended.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "data/configs.h"

namespace graphcost::model {

// sign(x) * log(1 + |x|), elementwise.
torch::Tensor signed_log(const torch::Tensor& x);

// Layout values in [-1, 5] [..., k] -> one-hot [..., k * kLayoutValues] (float32); -1-padded
// node layouts (ModelOptions::minus_one_padding) share this encoding. A value outside the range
// is an Error naming it.
torch::Tensor one_hot_layout(const torch::Tensor& values);

// A slate's configurations [S, Cc] (tile) or [S, nc, Cc] (layout, float32 values) -> the model's
// configuration input: tile [S, Cc'], layout [S, nc, Cc' + 1]. config_linear may be empty (no
// embedding). A layout value outside [-1, 5] is an Error naming the configuration features.
// tile_values: per tile column, the values given one-hot columns after the signed logs
// (ModelOptions::config_values; empty: none); a value not among them has zeros there.
// config_dims (GraphTensors::config_dims, [nc, 3, 6]; undefined: none) adds a layout
// configuration's tensor shapes under its layouts (layout_shapes), before the indicator.
torch::Tensor encode_configs(const torch::Tensor& configs, data::ConfigKind kind,
                             torch::nn::Linear& config_linear,
                             const std::vector<torch::Tensor>& tile_values = {},
                             const torch::Tensor& config_dims = {});

// layout_shapes' columns for a slate's layout configurations [S, nc, 18] and the configurable
// nodes' tensor dims [nc, 3, 6] -> [S, nc, kLayoutShapeColumns]: for each of the three tensors
// (output, input, kernel) of rank r (data::shape_rank of its dims), with the configured
// minor-to-major order L (the first 6 values of its block) or, when L[0] is -1, the default order
// (r-1, ..., 0), m0 = L[0] and m1 = L[1] (when -1: the highest dim other than m0): log(1 + d[m0]),
// log(1 + d[m1]) and log2(padded / (d[m0] * d[m1])) with padded = roundup(d[m0], 128) *
// roundup(d[m1], 8) (rank 1: roundup(d[m0], 128) and d[m1] = 1). A tensor of rank 0 (absent) gives
// zeros, as a layout value outside the tensor's rank does and a zero-sized d[m0] or d[m1] (no
// elements).
torch::Tensor layout_shape_columns(const torch::Tensor& configs, const torch::Tensor& config_dims);

}  // namespace graphcost::model
