// The pairwise head: P(a faster than b) from two configurations' graph embeddings, built
// antisymmetric: logit(a, b) = f(e_a - e_b) - f(e_b - e_a) with f a small MLP, so
// logit(b, a) = -logit(a, b) exactly and P(a > b) = 1 - P(b > a).
#pragma once

#include <torch/torch.h>

#include <string>

namespace graphcost::model {

class PairwiseHeadImpl : public torch::nn::Module {
 public:
  // width: E; hidden: f's hidden width; activation: an is_activation_name name.
  PairwiseHeadImpl(int64_t width, int64_t hidden, std::string activation);
  // a: [A, E], b: [B, E] -> [A, B] logits of P(a_i faster than b_j).
  torch::Tensor forward(const torch::Tensor& a, const torch::Tensor& b);

 private:
  torch::nn::Linear hidden_{nullptr}, out_{nullptr};
  std::string activation_;
};
TORCH_MODULE(PairwiseHead);

// Ranking by wins: score_i = -(mean over j with !leave_out[i][j] of sigmoid(logits[i][j])), a
// predicted cost (lower = more wins); 0 for a row with nothing to compare. logits [A, B], float;
// leave_out [A, B] bool (a configuration against itself).
torch::Tensor scores_from_wins(const torch::Tensor& logits, const torch::Tensor& leave_out);

}  // namespace graphcost::model
