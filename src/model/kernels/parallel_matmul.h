// x @ w^T with the rows of x split over the intra-op threads. LibTorch hands a matmul to BLAS
// whole, and OpenBLAS runs single-threaded here (model/kernels/threads.cc: its own pool on top of
// LibTorch's oversubscribes the cores), so the SAGE layers' matmuls, about half of a layout
// training step's CPU time, would otherwise leave every other core idle. Each thread runs one
// single-threaded BLAS call on its block of rows; the backward splits the same way (the weight's
// gradient as a sum of per-block products).
#pragma once

#include <torch/torch.h>

namespace graphcost::model {

// x [..., K] (float or double) times w [N, K] transposed: [..., N], differentiable in both.
// Small products (under about a million multiply-adds) or a single thread run as one at::matmul.
// With model::set_precision(kBf16) float products, forward and backward, take bf16 inputs
// (model/kernels/precision.h); the result and the gradients stay float.
torch::Tensor parallel_matmul(const torch::Tensor& x, const torch::Tensor& w);

// A linear layer's forward (x @ weight^T + bias) through parallel_matmul.
torch::Tensor parallel_linear(const torch::Tensor& x, const torch::nn::Linear& layer);

}  // namespace graphcost::model
