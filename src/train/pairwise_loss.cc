#include "train/pairwise_loss.h"

#include "core/error.h"

namespace graphcost::train {

torch::Tensor pairwise_bce_loss(const torch::Tensor& logits, const torch::Tensor& runtimes) {
  const int64_t s = runtimes.size(0);
  check_data(logits.dim() == 2 && logits.size(0) == s && logits.size(1) == s, "pairwise loss",
             "logits", "expected [S, S] for S = " + std::to_string(s) + " runtimes");
  const torch::Tensor r = runtimes.to(torch::kFloat64);
  const torch::Tensor faster = r.unsqueeze(1) < r.unsqueeze(0);   // [S, S]: r_i < r_j
  const torch::Tensor decided = r.unsqueeze(1) != r.unsqueeze(0);  // the diagonal is never
  const torch::Tensor pairs = decided.sum();
  if (pairs.item<int64_t>() == 0) return logits.sum() * 0;
  const torch::Tensor per_pair = torch::binary_cross_entropy_with_logits(
      logits, faster.to(logits.scalar_type()), {}, {}, at::Reduction::None);
  return (per_pair * decided.to(logits.scalar_type())).sum() / pairs.to(logits.scalar_type());
}

}  // namespace graphcost::train
