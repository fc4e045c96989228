#include "model/layers/attention.h"

#include <cmath>

namespace graphcost::model {

SlateAttentionImpl::SlateAttentionImpl(int64_t width, double temperature) {
  query_ = register_module("query", torch::nn::Linear(width, width));
  key_ = register_module("key", torch::nn::Linear(width, width));
  value_ = register_module("value", torch::nn::Linear(width, width));
  log_temperature_ =
      register_parameter("log_temperature", torch::full({}, std::log(temperature)));
}

double SlateAttentionImpl::temperature() const {
  return std::exp(log_temperature_.item<double>());
}

torch::Tensor SlateAttentionImpl::forward(const torch::Tensor& e) {
  namespace F = torch::nn::functional;
  const auto unit = F::NormalizeFuncOptions().p(2).dim(-1).eps(1e-8);
  const torch::Tensor q = F::normalize(query_->forward(e), unit);
  const torch::Tensor k = F::normalize(key_->forward(e), unit);
  const torch::Tensor weights =
      torch::softmax(torch::matmul(q, k.t()) / torch::exp(log_temperature_), -1);
  return torch::cat({e, torch::matmul(weights, value_->forward(e))}, -1);
}

torch::Tensor SlateAttentionImpl::forward_anchored(const torch::Tensor& e,
                                                   const torch::Tensor& anchors) {
  namespace F = torch::nn::functional;
  const auto unit = F::NormalizeFuncOptions().p(2).dim(-1).eps(1e-8);
  const torch::Tensor q = F::normalize(query_->forward(e), unit);
  const torch::Tensor temperature = torch::exp(log_temperature_);
  // Logits against the anchors [N, A] and against itself [N, 1], one softmax over both.
  const torch::Tensor to_anchors =
      torch::matmul(q, F::normalize(key_->forward(anchors), unit).t()) / temperature;
  const torch::Tensor to_self =
      (q * F::normalize(key_->forward(e), unit)).sum(-1, true) / temperature;
  const torch::Tensor weights = torch::softmax(torch::cat({to_anchors, to_self}, -1), -1);
  const int64_t a = anchors.size(0);
  const torch::Tensor mixed = torch::matmul(weights.slice(1, 0, a), value_->forward(anchors)) +
                              weights.slice(1, a, a + 1) * value_->forward(e);
  return torch::cat({e, mixed}, -1);
}

}  // namespace graphcost::model
