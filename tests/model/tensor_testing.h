// Tensor contents as plain vectors, for exact comparisons in the model tests.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace graphcost::model::testing {

// The elements of an int64 tensor, in storage order (t must be contiguous).
inline std::vector<int64_t> int64_values(const torch::Tensor& t) {
  return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
}

}  // namespace graphcost::model::testing
