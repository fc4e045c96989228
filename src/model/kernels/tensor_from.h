// A 1-D CPU tensor holding a vector's values, converted to a dtype (int32 node ids to int64
// indices, and so on): one helper for every place that turns plan vectors into tensors.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace graphcost::model {

template <typename T>
torch::Tensor tensor_from(const std::vector<T>& values, torch::Dtype dtype = torch::kLong) {
  const int64_t n = static_cast<int64_t>(values.size());
  if (n == 0) return torch::empty({0}, dtype);
  // A view of the vector's memory (never written), copied and converted by to().
  const torch::Tensor view = torch::from_blob(const_cast<T*>(values.data()), {n},
                                              torch::TensorOptions().dtype<T>());
  return view.to(dtype, /*non_blocking=*/false, /*copy=*/true);
}

}  // namespace graphcost::model
