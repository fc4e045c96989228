// Cross-configuration attention (after the 1st-place TpuGraphs solution): the configurations of
// one slate see each other. Each configuration's graph embedding e_i [E] gives a query, a key
// and a value (linear maps); the weights are softmax_j(cos(q_i, k_j) / t) over the slate, with
// a learned temperature t > 0 (stored as log t), and the layer returns [e_i, sum_j w_ij v_j].
// Cosine similarity keeps the logits in [-1/t, 1/t] whatever the embeddings' scale.
#pragma once

#include <torch/torch.h>

namespace graphcost::model {

class SlateAttentionImpl : public torch::nn::Module {
 public:
  // width: E; temperature: the initial t (> 0).
  SlateAttentionImpl(int64_t width, double temperature);
  // e: [S, E] -> [S, 2E]. Permuting the slate permutes the rows; a slate of one attends to itself.
  torch::Tensor forward(const torch::Tensor& e);
  // Every row of e [N, E] in its own slate with the same anchors [A, E]: row i of the result is
  // the last row of forward(cat(anchors, e_i)), [N, 2E]. Scores computed this way share one
  // context, so they compare across slates (model/scoring/tta.h, score_configs_anchored).
  torch::Tensor forward_anchored(const torch::Tensor& e, const torch::Tensor& anchors);
  double temperature() const;

 private:
  torch::nn::Linear query_{nullptr}, key_{nullptr}, value_{nullptr};
  torch::Tensor log_temperature_;
};
TORCH_MODULE(SlateAttention);

}  // namespace graphcost::model
