// Checks that two forward paths of one model give the same scores and parameter gradients.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "model/forward/ranker.h"

namespace graphcost::model::testing {

// Compares the scores (to 1e-4 relative) and the gradients of sum(scores * weights) with respect
// to every parameter (to 1e-3 relative). Afterwards the model holds the second path's gradients.
inline void expect_same_scores_and_gradients(Ranker& model, const torch::Tensor& first,
                                             const torch::Tensor& second,
                                             const torch::Tensor& weights) {
  EXPECT_TRUE(torch::allclose(first, second, 1e-4, 1e-5)) << first << second;
  model->zero_grad();
  (first * weights).sum().backward();
  std::vector<torch::Tensor> grads;
  for (auto& p : model->parameters()) grads.push_back(p.grad().clone());
  model->zero_grad();
  (second * weights).sum().backward();
  const auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(torch::allclose(grads[i], params[i].grad(), 1e-3, 1e-5)) << "parameter " << i;
  }
}

}  // namespace graphcost::model::testing
