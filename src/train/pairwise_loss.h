// The pairwise head's training loss (head "pairwise", docs/model-architecture.md).
#pragma once

#include <torch/torch.h>

namespace graphcost::train {

// Binary cross-entropy over the ordered pairs (i, j), i != j, of a slate with different
// runtimes: target 1 when r_i < r_j (i faster), the logit logits[i][j] of P(i faster than j);
// the mean over those pairs, 0 (attached to logits) when there is none. logits [S, S],
// runtimes [S].
torch::Tensor pairwise_bce_loss(const torch::Tensor& logits, const torch::Tensor& runtimes);

}  // namespace graphcost::train
