#include "model/layers/pairwise.h"

#include <utility>

#include "model/layers/activation.h"

namespace graphcost::model {

PairwiseHeadImpl::PairwiseHeadImpl(int64_t width, int64_t hidden, std::string activation)
    : activation_(std::move(activation)) {
  hidden_ = register_module("hidden", torch::nn::Linear(width, hidden));
  out_ = register_module("out", torch::nn::Linear(hidden, 1));
}

torch::Tensor PairwiseHeadImpl::forward(const torch::Tensor& a, const torch::Tensor& b) {
  const torch::Tensor difference = a.unsqueeze(1) - b.unsqueeze(0);  // [A, B, E]
  auto f = [&](const torch::Tensor& d) {
    return out_->forward(apply_activation(activation_, hidden_->forward(d))).squeeze(-1);
  };
  // IEEE subtraction is exactly antisymmetric, so the logits are too.
  return f(difference) - f(-difference);
}

torch::Tensor scores_from_wins(const torch::Tensor& logits, const torch::Tensor& leave_out) {
  const torch::Tensor kept = (~leave_out).to(logits.scalar_type());
  const torch::Tensor count = kept.sum(1);
  const torch::Tensor wins = (torch::sigmoid(logits) * kept).sum(1);
  return -wins / count.clamp_min(1);
}

}  // namespace graphcost::model
