// The default cost model (after the 2nd-place TpuGraphs solution): opcode embedding, compressed
// node features through a linear layer, configuration features fused early at every node (tile:
// broadcast; layout: at the configurable nodes, -1 kept distinct from 0), a stack of GraphSAGE
// layers (mean over operands, mean over users, concatenated with the node's own state; residual
// where widths match), a per-node scalar head, summed over nodes: one score per configuration.
// A score is a predicted cost: lower means faster.
#pragma once

#include <torch/torch.h>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/configs.h"
#include "model/forward/config_classes.h"
#include "model/forward/config_reach.h"
#include "model/forward/graph_tensors.h"
#include "model/layers/attention.h"
#include "model/layers/config_mlp.h"
#include "model/layers/graph_norm.h"
#include "model/layers/pairwise.h"
#include "model/options/model_options.h"

namespace graphcost::model {

class RankerImpl : public torch::nn::Module {
 public:
  explicit RankerImpl(const ModelOptions& options);
  // Scores of the slate's configurations: [S]. Nodes further than num_layers hops from every
  // configurable node are computed once for the whole slate (see config_reach.h). With the
  // pairwise head: minus each configuration's mean win probability against the rest of the slate.
  // With attention, a score depends on the slate it is computed in.
  // with_constant = false leaves out the head terms of nodes no configuration reaches, the same
  // for every configuration of the graph: the scores shift by one constant per graph, which
  // shift-invariant (ranking) losses do not see, and the last layer's shared pass is skipped.
  torch::Tensor forward(const Slate& slate, bool with_constant = true);
  // Configuration-independent work on one graph (reach plan, node states, the shared pass),
  // kept between forward_cached calls when no gradients are recorded and dropout is inactive:
  // scoring a graph's configurations in many slates then computes it once. It belongs to one
  // graph and one set of parameters: make one per graph and scoring pass, drop it afterwards
  // (another graph or another with_constant resets it).
  struct SharedCache {
    const GraphTensors* graph = nullptr;
    bool final_shared = true;
    std::shared_ptr<const ConfigReachPlan> plan;
    torch::Tensor node_states;         // [n, C1], the configuration-independent node inputs
    torch::Tensor first_shared_input;  // layout: SAGE layer 1's shared input rows (plan labels)
    // One SAGE layer's configuration-independent work, in the plan's labels.
    struct Layer {
      torch::Tensor shared_pre_activation;  // [shared_rows, H]
      torch::Tensor shared_output;          // [shared_rows, H]
    };
    std::vector<Layer> layers;  // by 0-based layer, as far as computed
  };
  // forward(), with the configuration-independent work taken from (and stored in) cache where
  // that is exact; cache may be null. Same scores as forward().
  torch::Tensor forward_cached(const Slate& slate, bool with_constant, SharedCache* cache);
  // The same scores computed naively, every node for every configuration: the reference that
  // tests compare forward() against (architecture "sage").
  torch::Tensor forward_dense(const Slate& slate);
  // Each configuration's embedding, what the score and pairwise heads read: [S, E]. "sage": the
  // final node states summed over the nodes; "mlp": the last hidden layer; with attention,
  // followed by the attention layer's output (E doubles).
  // cache as in forward_cached (used only where exact, may be null).
  torch::Tensor embed(const Slate& slate, SharedCache* cache = nullptr);
  // The embedding before the attention layer (embed() without attention): [S, E]. It does not
  // depend on the slate, so scoring a graph in many slates may share one cache.
  torch::Tensor embed_before_attention(const Slate& slate, SharedCache* cache = nullptr);
  // With attention and the score head: the scores of configurations whose embeddings before
  // attention are e [N, E], each in its own slate with the same anchors [A, E] (see
  // SlateAttentionImpl::forward_anchored): [N].
  torch::Tensor scores_anchored(const torch::Tensor& e, const torch::Tensor& anchors);
  // Pairwise head: logits of P(a_i faster than b_j) from embeddings a [A, E], b [B, E]: [A, B].
  torch::Tensor pairwise_logits(const torch::Tensor& a, const torch::Tensor& b);
  // Pairwise head: every ordered pair of the slate, [S, S] (antisymmetric).
  torch::Tensor pairwise_logits(const Slate& slate);
  // Per-configuration input of each node: tile [S, Cc]; layout [S, nc, Cc] (configurable nodes
  // only; every other node's configuration input is zero).
  torch::Tensor encode_configs(const Slate& slate);
  const ModelOptions& options() const { return options_; }
  int64_t parameter_count() const;
  // Row sharing (model/forward/config_classes.h): while configurations agree on the configurable nodes a
  // row has reached, layers run on one row per class. On by default; the same scores either way
  // (up to rounding), off only to measure the saving (TrainOptions::share_rows). Set by whoever
  // runs the model: the trainer from its options, the inference layer on for scoring.
  void set_share_rows(bool share) { share_rows_ = share; }
  bool share_rows() const { return share_rows_; }

 private:
  const GraphTensors& check_slate(const Slate& slate) const;
  torch::Tensor node_state(const GraphTensors& graph);  // [n, C1], configuration-independent
  torch::Tensor sage_layer(size_t layer, const torch::Tensor& self, const torch::Tensor& operands,
                           const torch::Tensor& users);
  torch::Tensor activate(const torch::Tensor& x) const;
  // The default model: per-node scalar head summed over the nodes.
  bool per_node_head() const;
  // Propagation through every SAGE layer with the configuration-independent rows shared.
  // Both tensors are in the plan's labels: reached [reach[L], S, H], shared [rows, H].
  // While configurations still share rows after the last layer, the reached states stay by class:
  // entries [U, H], one row per (row, class) entry, and spread [reach[L] * S] the entry of each
  // (row, configuration); reached is then undefined until reached_rows() spreads them.
  struct SparseStates {
    ConfigReachPlan plan;
    torch::Tensor reached, shared;
    torch::Tensor entries, spread;
    int64_t slate = 0;
    torch::Tensor reached_rows() const;
  };
  // final_shared = false skips the last layer's configuration-independent pass and restricts the
  // others to what the reached rows read (ConfigReachPlan::shared_rows); the scores then lack the
  // per-graph constant. Defined with the steps below in model/forward/sparse_propagation.cc.
  SparseStates sparse_states(const GraphTensors& graph, const Slate& slate,
                             bool final_shared = true, SharedCache* cache = nullptr);
  // The steps of sparse_states on the state of one pass (SparsePass, in sparse_propagation.cc).
  struct SparsePass;
  void first_layout_layer(SparsePass& pass);
  void delta_layer(SparsePass& pass, int64_t l, bool update_shared);
  void full_layer(SparsePass& pass, int64_t l, bool update_shared);
  void update_shared_output(SparsePass& pass, int64_t l, const torch::Tensor& shared_pre,
                            const torch::Tensor& shared_in, int64_t input_width);
  // Every node's final state for every configuration: [n, S, H].
  torch::Tensor dense_states(const GraphTensors& graph, const Slate& slate);
  // Sum-pooled final node states [S, H], before attention; chunked without gradients, the
  // chunks sharing cache (or a cache of their own).
  torch::Tensor pooled_states(const GraphTensors& graph, const Slate& slate, SharedCache* cache);
  torch::Tensor scores_from_embedding(const torch::Tensor& embedding);
  static constexpr int64_t kInferenceChunk = 16;  // configurations per chunk without gradients

  ModelOptions options_;
  torch::nn::Embedding opcode_embedding_{nullptr};
  torch::nn::Linear node_linear_{nullptr};
  torch::nn::Linear config_linear_{nullptr};  // only when options.config_embedding > 0
  std::vector<torch::Tensor> tile_values_;    // options.config_values, one tensor per column
  std::vector<torch::nn::Linear> layers_;
  torch::nn::Linear head_{nullptr};        // per-node head (per_node_head())
  torch::nn::Linear score_head_{nullptr};  // embedding -> score (otherwise, head "score")
  ConfigMlp mlp_{nullptr};                 // architecture "mlp"
  std::vector<GraphNorm> norms_;           // graph_norm: one per SAGE layer
  SlateAttention attention_{nullptr};
  PairwiseHead pairwise_{nullptr};
  bool share_rows_ = true;
};
TORCH_MODULE(Ranker);

}  // namespace graphcost::model
