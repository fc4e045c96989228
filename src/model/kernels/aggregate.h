// Mean aggregation over CSR neighbours, the message-passing step of the GraphSAGE layers: a
// hand-written CPU kernel (OpenMP over output rows, one pass, no per-edge tensor) wrapped as an
// autograd function whose backward runs the same kernel along the reverse CSR.
#pragma once

#include <torch/torch.h>

#include <string>

namespace graphcost::model {

// Row r of the result is the mean of input rows indices[offsets[r] .. offsets[r+1]) (zeros for a
// row without neighbours). input is [num_in, C] or [num_in, S, C] (trailing dims are one row),
// float or double, contiguous; offsets [num_out + 1] and indices [m] are int64. reverse_offsets
// [num_in + 1] / reverse_indices [m] is the transposed CSR (for a graph's operands: its users),
// used by the backward. Result: [num_out, ...]. Bad shapes or dtypes throw graphcost::Error.
torch::Tensor mean_aggregate(const torch::Tensor& input, const torch::Tensor& offsets,
                             const torch::Tensor& indices, const torch::Tensor& reverse_offsets,
                             const torch::Tensor& reverse_indices);

// The kernel without autograd: out[r] = sum_k w(j_k) * input[j_k] over the neighbours j_k of r,
// divided by deg(r) when divide_by_degree; w(j) = source_weights[j] (double) or 1 when null.
void weighted_neighbour_sum(const torch::Tensor& input, const torch::Tensor& offsets,
                            const torch::Tensor& indices, const double* source_weights,
                            bool divide_by_degree, torch::Tensor& out);

// Checks one CSR: int64, 1-D, contiguous, on the CPU; `rows` + 1 non-decreasing offsets (any
// number when rows < 0) from 0 to the number of indices; indices in [0, num_targets). Throws
// graphcost::Error naming `where` and `name`.
void check_csr(const char* where, const torch::Tensor& offsets, const torch::Tensor& indices,
               int64_t rows, int64_t num_targets, const std::string& name);

// Checks the arguments of mean_aggregate; throws graphcost::Error naming the bad one.
void check_aggregate_inputs(const torch::Tensor& input, const torch::Tensor& offsets,
                            const torch::Tensor& indices, const torch::Tensor& reverse_offsets,
                            const torch::Tensor& reverse_indices);

}  // namespace graphcost::model
