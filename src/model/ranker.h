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
#include "model/attention.h"
#include "model/config_classes.h"
#include "model/config_mlp.h"
#include "model/config_reach.h"
#include "model/graph_norm.h"
#include "model/graph_tensors.h"
#include "model/model_options.h"
#include "model/pairwise.h"

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
    std::vector<torch::Tensor> tensors;  // by slot: see RankerImpl::cached
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
  // per-graph constant.
  SparseStates sparse_states(const GraphTensors& graph, const Slate& slate,
                             bool final_shared = true, SharedCache* cache = nullptr);
  // compute(), or its value kept in cache's slot (computed there the first time); no cache:
  // compute(). Slots: 0 node states, 1 the first layer's shared input, 2l and 2l + 1 layer l's
  // shared pre-activation and shared output.
  static torch::Tensor cached(SharedCache* cache, size_t slot,
                              const std::function<torch::Tensor()>& compute);
  // Every node's final state for every configuration: [n, S, H].
  torch::Tensor dense_states(const GraphTensors& graph, const Slate& slate);
  // Sum-pooled final node states [S, H], before attention; chunked without gradients, the
  // chunks sharing cache (or a cache of their own).
  torch::Tensor pooled_states(const GraphTensors& graph, const Slate& slate, SharedCache* cache);
  torch::Tensor scores_from_embedding(const torch::Tensor& embedding);
  // Layer 1 for layout slates; replaces shared by its layer-1 state, returns the reached rows.
  // shared enters as the plan's first shared inputs (in labels) and leaves as its shared rows.
  // by_class: when given, the layer runs on one row per class entry (model/config_classes.h):
  // it enters with the configurable nodes' classes and leaves one hop further, and the result is
  // the entries' rows [U, H].
  struct ClassLevel {
    torch::Tensor classes;  // [rows, S]; undefined: not by class
    ClassRows rows;         // its entries
  };
  torch::Tensor first_layout_layer(const ConfigReachPlan& plan, const torch::Tensor& independent,
                                   const torch::Tensor& configs, torch::Tensor& shared,
                                   SharedCache* cache, ClassLevel* by_class);
  static constexpr int64_t kInferenceChunk = 16;  // configurations per chunk without gradients

  ModelOptions options_;
  torch::nn::Embedding opcode_embedding_{nullptr};
  torch::nn::Linear node_linear_{nullptr};
  torch::nn::Linear config_linear_{nullptr};  // only when options.config_embedding > 0
  std::vector<torch::nn::Linear> layers_;
  torch::nn::Linear head_{nullptr};        // per-node head (per_node_head())
  torch::nn::Linear score_head_{nullptr};  // embedding -> score (otherwise, head "score")
  ConfigMlp mlp_{nullptr};                 // architecture "mlp"
  std::vector<GraphNorm> norms_;           // graph_norm: one per SAGE layer
  SlateAttention attention_{nullptr};
  PairwiseHead pairwise_{nullptr};
};
TORCH_MODULE(Ranker);

// Saves options (as JSON) and weights in one LibTorch archive, written atomically.
void save_model(Ranker& model, const std::string& path);
// Loads a model saved by save_model; a missing or malformed file is an Error naming it.
Ranker load_model(const std::string& path);

}  // namespace graphcost::model
