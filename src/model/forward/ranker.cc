#include "model/forward/ranker.h"

#include <string>

#include "core/error.h"
#include "model/forward/config_encoding.h"
#include "model/kernels/aggregate.h"
#include "model/kernels/parallel_matmul.h"
#include "model/layers/activation.h"

namespace graphcost::model {

namespace {

const char* kWhere = "ranker";

// f over consecutive parts of at most `chunk` of the slate's configurations, concatenated.
template <typename F>
torch::Tensor in_chunks(const Slate& slate, int64_t chunk, F&& f) {
  const int64_t s = slate.config_features.size(0);
  std::vector<torch::Tensor> parts;
  for (int64_t begin = 0; begin < s; begin += chunk) {
    Slate part = slate;
    part.config_features = slate.config_features.slice(0, begin, std::min(s, begin + chunk));
    parts.push_back(f(part));
  }
  return torch::cat(parts);
}

}  // namespace

RankerImpl::RankerImpl(const ModelOptions& options) : options_(options) {
  check_model_options(options_);
  for (const std::vector<double>& values : options_.config_values)
    tile_values_.push_back(torch::tensor(std::vector<float>(values.begin(), values.end())));
  const bool sage = options_.architecture == "sage";
  const GraphFeatureOptions features = graph_feature_options(options_);
  const int64_t node_width = options_.node_feature_width + extra_feature_width(features);
  if (sage) {  // the MLP reads the node features directly
    opcode_embedding_ = register_module(
        "opcode_embedding",
        torch::nn::Embedding(options_.num_opcodes + (features.virtual_node ? 1 : 0),
                             options_.opcode_embedding));
    node_linear_ = register_module("node_linear",
                                   torch::nn::Linear(node_width, options_.node_feature_dim));
  }
  if (options_.config_embedding > 0) {
    const int64_t raw = options_.kind == data::ConfigKind::Tile
                            ? tile_encoded_width(options_)
                            : options_.config_width * data::kLayoutValues;
    config_linear_ =
        register_module("config_linear", torch::nn::Linear(raw, options_.config_embedding));
  }
  if (!sage) {
    mlp_ = register_module(
        "mlp", ConfigMlp(node_width, config_input_width(options_), options_.hidden,
                         options_.dropout, options_.activation));
  } else {
    int64_t width = options_.opcode_embedding + options_.node_feature_dim +
                    (options_.minus_one_padding ? 6 * data::kLayoutValues : 0) +
                    config_input_width(options_);
    for (size_t l = 0; l < options_.hidden.size(); ++l) {
      layers_.push_back(register_module("sage" + std::to_string(l),
                                        torch::nn::Linear(3 * width, options_.hidden[l])));
      if (options_.graph_norm)
        norms_.push_back(register_module("norm" + std::to_string(l), GraphNorm(options_.hidden[l])));
      width = options_.hidden[l];
    }
  }
  if (per_node_head()) {
    head_ = register_module("head", torch::nn::Linear(options_.hidden.back(), 1));
    return;
  }
  int64_t embedding = options_.hidden.back();
  if (options_.attention) {
    attention_ = register_module("attention",
                                 SlateAttention(embedding, options_.attention_temperature));
    embedding *= 2;
  }
  if (options_.head == "pairwise") {
    pairwise_ = register_module("pairwise",
                                PairwiseHead(embedding, options_.hidden.back(), options_.activation));
  } else {
    score_head_ = register_module("score_head", torch::nn::Linear(embedding, 1));
  }
}

bool RankerImpl::per_node_head() const {
  return options_.architecture == "sage" && options_.head == "score" && !options_.attention;
}

int64_t RankerImpl::parameter_count() const {
  int64_t count = 0;
  for (const auto& p : parameters()) count += p.numel();
  return count;
}

const GraphTensors& RankerImpl::check_slate(const Slate& slate) const {
  check_data(slate.graph != nullptr, kWhere, "slate", "has no graph");
  const GraphTensors& g = *slate.graph;
  const torch::Tensor& c = slate.config_features;
  check_data(c.defined() && c.scalar_type() == torch::kFloat, kWhere, "config_features",
             "expected a float32 tensor");
  const GraphFeatureOptions features = graph_feature_options(options_);
  const int64_t width = options_.node_feature_width + extra_feature_width(features);
  check_data(g.node_features.dim() == 2 && g.node_features.size(1) == width, kWhere,
             "node_features",
             "width " + std::to_string(g.node_features.dim() == 2 ? g.node_features.size(1) : -1) +
                 " does not match the model's " + std::to_string(width) +
                 " (graph tensors built with other feature options?)");
  check_data(g.node_layout.defined() == options_.minus_one_padding, kWhere, "node_layout",
             "the graph tensors and the model disagree on minus_one_padding");
  if (g.num_nodes > 0) {
    const int64_t opcodes = options_.num_opcodes + (features.virtual_node ? 1 : 0);
    const int64_t low = g.opcodes.min().item<int64_t>(), high = g.opcodes.max().item<int64_t>();
    check_data(low >= 0 && high < opcodes, kWhere, "opcodes",
               "opcode " + std::to_string(low < 0 ? low : high) + " outside [0, " +
                   std::to_string(opcodes) + ")");
  }
  if (options_.kind == data::ConfigKind::Tile) {
    check_data(c.dim() == 2 && c.size(1) == options_.config_width, kWhere, "config_features",
               "expected tile configurations [S, " + std::to_string(options_.config_width) + "]");
  } else {
    check_data(c.dim() == 3 && c.size(1) == g.configurable_nodes.size(0) &&
                   c.size(2) == options_.config_width,
               kWhere, "config_features",
               "expected layout configurations [S, " +
                   std::to_string(g.configurable_nodes.size(0)) + ", " +
                   std::to_string(options_.config_width) + "]");
  }
  return g;
}

torch::Tensor RankerImpl::encode_configs(const Slate& slate) {
  torch::Tensor config_dims;
  if (uses_layout_shapes(options_)) {
    config_dims = slate.graph->config_dims;
    check_data(config_dims.defined(), kWhere, "config_dims",
               "the model gives layout shapes, but the graph tensors were built without them");
  }
  return model::encode_configs(slate.config_features, options_.kind, config_linear_, tile_values_,
                               config_dims);
}

torch::Tensor RankerImpl::node_state(const GraphTensors& graph) {
  std::vector<torch::Tensor> parts = {opcode_embedding_->forward(graph.opcodes),
                                      node_linear_->forward(graph.node_features)};
  if (options_.minus_one_padding) parts.push_back(one_hot_layout(graph.node_layout));
  return torch::cat(parts, -1);
}

torch::Tensor RankerImpl::activate(const torch::Tensor& x) const {
  return apply_activation(options_.activation, x);
}

torch::Tensor RankerImpl::sage_layer(size_t layer, const torch::Tensor& self,
                                     const torch::Tensor& operands, const torch::Tensor& users) {
  torch::Tensor h =
      activate(parallel_linear(torch::cat({self, operands, users}, -1), layers_[layer]));
  if (h.size(-1) == self.size(-1)) h = h + self;
  // Only the dense path runs with graph_norm, so `h` holds every node of the graph here.
  if (!norms_.empty()) h = norms_[layer]->forward(h);
  if (options_.dropout > 0) h = torch::dropout(h, options_.dropout, is_training());
  return h;
}

torch::Tensor RankerImpl::forward(const Slate& slate, bool with_constant) {
  return forward_cached(slate, with_constant, nullptr);
}

torch::Tensor RankerImpl::forward_cached(const Slate& slate, bool with_constant,
                                         SharedCache* cache) {
  if (!per_node_head()) return scores_from_embedding(embed(slate, cache));
  const GraphTensors& g = check_slate(slate);
  const int64_t s = slate.config_features.size(0), n = g.num_nodes;
  // Keeps the result attached to the parameters even for an empty graph.
  const torch::Tensor zero = head_->bias.sum() * 0;
  if (s == 0 || n == 0) return torch::zeros({s}) + zero;
  // Without gradients nothing is kept for a backward, so big slates go in chunks to bound memory.
  // The chunks share the configuration-independent work (a cache of their own without one).
  if (!torch::GradMode::is_enabled() && s > kInferenceChunk) {
    SharedCache local;
    SharedCache* shared_cache = cache != nullptr ? cache : &local;
    return in_chunks(slate, kInferenceChunk, [&](const Slate& part) {
      return forward_cached(part, with_constant, shared_cache);
    });
  }
  if (options_.graph_norm) return head_->forward(dense_states(g, slate)).squeeze(-1).sum(0) + zero;
  const SparseStates states = sparse_states(g, slate, with_constant, cache);
  const int64_t last = states.plan.reach[layers_.size()];
  torch::Tensor scores;
  if (states.entries.defined()) {
    // By class: the head once per entry, each configuration's score summed over its entries.
    const torch::Tensor per_entry = head_->forward(states.entries).squeeze(-1);
    scores = per_entry.index_select(0, states.spread).view({-1, s}).sum(0);
  } else {
    scores = head_->forward(states.reached).squeeze(-1).sum(0);
  }
  if (last < n && with_constant) {
    scores = scores + head_->forward(states.shared.slice(0, last, n)).sum();
  }
  return scores + zero;
}

torch::Tensor RankerImpl::dense_states(const GraphTensors& g, const Slate& slate) {
  const int64_t s = slate.config_features.size(0), n = g.num_nodes;
  const torch::Tensor independent = node_state(g);
  const torch::Tensor configs = encode_configs(slate);
  const int64_t c1 = independent.size(1), cc = configs.size(-1);
  torch::Tensor per_node;
  if (options_.kind == data::ConfigKind::Tile) {
    per_node = configs.unsqueeze(0).expand({n, s, cc});
  } else {
    per_node =
        torch::zeros({n, s, cc}).index_copy(0, g.configurable_nodes, configs.transpose(0, 1));
  }
  torch::Tensor h = torch::cat({independent.unsqueeze(1).expand({n, s, c1}), per_node}, -1);
  for (size_t l = 0; l < layers_.size(); ++l) {
    h = h.contiguous();
    h = sage_layer(
        l, h,
        mean_aggregate(h, g.operand_offsets, g.operand_indices, g.user_offsets, g.user_indices),
        mean_aggregate(h, g.user_offsets, g.user_indices, g.operand_offsets, g.operand_indices));
  }
  return h;
}

torch::Tensor RankerImpl::forward_dense(const Slate& slate) {
  check_data(options_.architecture == "sage", kWhere, "architecture",
             "forward_dense is the SAGE reference");
  const GraphTensors& g = check_slate(slate);
  if (!per_node_head()) {
    const torch::Tensor pooled = dense_states(g, slate).sum(0);
    return scores_from_embedding(attention_ ? attention_->forward(pooled) : pooled);
  }
  return head_->forward(dense_states(g, slate)).squeeze(-1).sum(0);
}

torch::Tensor RankerImpl::pooled_states(const GraphTensors& g, const Slate& slate,
                                        SharedCache* cache) {
  const int64_t s = slate.config_features.size(0), n = g.num_nodes;
  const int64_t width = options_.hidden.back();
  const torch::Tensor zero = layers_.back()->bias.sum() * 0;
  if (s == 0 || n == 0) return torch::zeros({s, width}) + zero;
  if (!torch::GradMode::is_enabled() && s > kInferenceChunk) {
    SharedCache local;
    SharedCache* shared_cache = cache != nullptr ? cache : &local;
    return in_chunks(slate, kInferenceChunk,
                     [&](const Slate& part) { return pooled_states(g, part, shared_cache); });
  }
  if (options_.graph_norm) return dense_states(g, slate).sum(0);
  const SparseStates states = sparse_states(g, slate, /*final_shared=*/true, cache);
  const int64_t last = states.plan.reach[layers_.size()];
  torch::Tensor pooled = states.reached_rows().sum(0);
  if (last < n) {
    pooled = pooled + states.shared.slice(0, last, n).sum(0, true);
  }
  return pooled;
}

torch::Tensor RankerImpl::embed_before_attention(const Slate& slate, SharedCache* cache) {
  const GraphTensors& g = check_slate(slate);
  return mlp_ ? mlp_->forward(g, encode_configs(slate)) : pooled_states(g, slate, cache);
}

torch::Tensor RankerImpl::embed(const Slate& slate, SharedCache* cache) {
  const torch::Tensor e = embed_before_attention(slate, cache);
  return attention_ ? attention_->forward(e) : e;
}

torch::Tensor RankerImpl::scores_anchored(const torch::Tensor& e, const torch::Tensor& anchors) {
  check_data(attention_ && !pairwise_, kWhere, "attention",
             "anchored scores need a model with attention and the score head");
  return scores_from_embedding(attention_->forward_anchored(e, anchors));
}

torch::Tensor RankerImpl::pairwise_logits(const torch::Tensor& a, const torch::Tensor& b) {
  check_data(static_cast<bool>(pairwise_), kWhere, "head", "pairwise logits need head pairwise");
  return pairwise_->forward(a, b);
}

torch::Tensor RankerImpl::pairwise_logits(const Slate& slate) {
  const torch::Tensor e = embed(slate);
  return pairwise_logits(e, e);
}

torch::Tensor RankerImpl::scores_from_embedding(const torch::Tensor& embedding) {
  if (pairwise_) {
    const int64_t s = embedding.size(0);
    return scores_from_wins(pairwise_->forward(embedding, embedding),
                            torch::eye(s, torch::kBool));
  }
  return score_head_->forward(embedding).squeeze(-1);
}

}  // namespace graphcost::model
