#include "model/ranker.h"

#include <string>

#include "core/error.h"
#include "model/activation.h"
#include "model/aggregate.h"
#include "model/change_aggregate.h"
#include "model/config_classes.h"
#include "model/config_reach.h"
#include "model/parallel_matmul.h"

namespace graphcost::model {

namespace {

const char* kWhere = "ranker";

torch::Tensor signed_log(const torch::Tensor& x) {
  return torch::sign(x) * torch::log1p(torch::abs(x));
}

constexpr int64_t kLayoutValues = 7;  // {-1, 0, ..., 5}

// Layout values in [-1, 5] [..., k] -> one-hot [..., k * 7]: configurations and -1-padded node
// layouts share this encoding.
// Written out rather than torch::one_hot, which scans its input twice for the range and then
// scatters into a 64-bit tensor converted afterwards: about 7% of a --prune 1 training step.
torch::Tensor one_hot_layout(const torch::Tensor& values) {
  const torch::Tensor in = values.to(torch::kFloat).contiguous();
  std::vector<int64_t> shape = in.sizes().vec();
  shape.back() *= kLayoutValues;
  torch::Tensor out = torch::zeros(shape, torch::kFloat);
  const float* v = in.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) {
    const auto k = static_cast<int64_t>(v[i] + 1.0f);  // -1 (absent) is class 0
    if (k < 0 || k >= kLayoutValues) {
      throw Error("model", "layout value",
                  std::to_string(v[i]) + " is outside -1.." + std::to_string(kLayoutValues - 2));
    }
    o[i * kLayoutValues + k] = 1.0f;
  }
  return out;
}

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

// Class entries [U, H] spread to every (row, configuration) of a slate of s: [rows, s, H], row
// r's configuration c being entry spread[r * s + c].
torch::Tensor spread_entries(const torch::Tensor& entries, const torch::Tensor& spread, int64_t s) {
  const int64_t rows = s > 0 ? spread.size(0) / s : 0;
  return entries.index_select(0, spread).view({rows, s, entries.size(1)});
}

// part [k, ...] followed by zero rows up to `total` rows.
torch::Tensor pad_rows(const torch::Tensor& part, int64_t total) {
  if (total <= part.size(0)) return part.contiguous();
  std::vector<int64_t> shape = part.sizes().vec();
  shape[0] = total - part.size(0);
  return torch::cat({part, torch::zeros(shape)}, 0);
}

// The operand and user means of the shared (configuration-free) state for plan layer l's shared
// rows: two [shared_rows, C] tensors from shared [shared_inputs, C], both in labels.
std::pair<torch::Tensor, torch::Tensor> shared_means(const ConfigReachPlan& plan, size_t l,
                                                     const torch::Tensor& shared) {
  const ReachLayerCsr& csr = plan.shared_layers[l - 1];
  return {mean_aggregate(shared, csr.operand_offsets, csr.operand_indices,
                         csr.operand_reverse_offsets, csr.operand_reverse_indices),
          mean_aggregate(shared, csr.user_offsets, csr.user_indices, csr.user_reverse_offsets,
                         csr.user_reverse_indices)};
}

// Plan layer l's pre-activation on the shared state: [shared_rows, H] from [shared_inputs, C].
torch::Tensor shared_pre_activation(torch::nn::Linear& layer, const torch::Tensor& shared,
                                    const ConfigReachPlan& plan, size_t l) {
  const auto [operands, users] = shared_means(plan, l, shared);
  return parallel_linear(
      torch::cat({shared.narrow(0, 0, plan.shared_rows[l - 1]), operands, users}, -1), layer);
}

// The pre-activation of the rows [0, reach[l]) that plan layer l (1-based) gives per
// configuration: the shared pre-activation plus the change. `projected` [changed, S, 3H] holds
// the change on rows [0, changed) projected by the weight's self, operand-mean and user-mean
// blocks; the layer is linear before its activation and mean aggregation commutes with it.
torch::Tensor pre_activation_with_change(const ConfigReachPlan& plan, size_t l,
                                         const torch::Tensor& shared_pre,
                                         const torch::Tensor& projected) {
  const int64_t rows = plan.reach[l];
  // The shared rows are added inside the aggregation's pass over [rows, S, H].
  return change_aggregate(projected.contiguous(), plan.layers[l - 1].change, rows,
                          shared_pre.narrow(0, 0, rows).contiguous());
}

}  // namespace

RankerImpl::RankerImpl(const ModelOptions& options) : options_(options) {
  check_model_options(options_);
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
    const int64_t raw =
        options_.kind == data::ConfigKind::Tile ? options_.config_width : options_.config_width * 7;
    config_linear_ =
        register_module("config_linear", torch::nn::Linear(raw, options_.config_embedding));
  }
  if (!sage) {
    mlp_ = register_module(
        "mlp", ConfigMlp(node_width, config_input_width(options_), options_.hidden,
                         options_.dropout, options_.activation));
  } else {
    int64_t width = options_.opcode_embedding + options_.node_feature_dim +
                    (options_.minus_one_padding ? 6 * kLayoutValues : 0) +
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
  const torch::Tensor& c = slate.config_features;
  if (options_.kind == data::ConfigKind::Tile) {
    torch::Tensor x = signed_log(c);
    return config_linear_ ? config_linear_->forward(x) : x;
  }
  const int64_t s = c.size(0), nc = c.size(1);
  if (c.numel() > 0) {
    const float low = c.min().item<float>(), high = c.max().item<float>();
    check_data(low >= -1 && high <= 5, kWhere, "config_features",
               "layout values must lie in [-1, 5], found " + std::to_string(low < -1 ? low : high));
  }
  torch::Tensor x = one_hot_layout(c);
  if (config_linear_) x = config_linear_->forward(x);
  return torch::cat({x, torch::ones({s, nc, 1})}, -1);
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

torch::Tensor RankerImpl::first_layout_layer(const ConfigReachPlan& plan,
                                             const torch::Tensor& independent,
                                             const torch::Tensor& configs, torch::Tensor& shared,
                                             SharedCache* cache, ClassLevel* by_class) {
  // The layer is linear before its activation, and mean aggregation commutes with a linear map,
  // so its input splits into a configuration-independent part (computed once, [n, H]) and the
  // configuration part, which is non-zero only at the configurable nodes: projected there
  // ([nc, S, H] per weight block), then aggregated (pre_activation_with_change).
  const int64_t s = configs.size(0), rows = plan.reach[1];
  const int64_t c1 = independent.size(1), cc = configs.size(-1), c0 = c1 + cc;
  torch::nn::Linear& layer = layers_[0];
  const int64_t h = layer->weight.size(0);
  const torch::Tensor shared_in = shared.contiguous();
  const torch::Tensor shared_pre =
      cached(cache, 2, [&] { return shared_pre_activation(layer, shared_in, plan, 1); });
  const torch::Tensor& w = layer->weight;
  const torch::Tensor w_config =
      torch::cat({w.narrow(1, c1, cc), w.narrow(1, c0 + c1, cc), w.narrow(1, 2 * c0 + c1, cc)}, 0);
  auto shared_output = [&] {
    // The shared output first: its dropout draws come before the reached rows'.
    shared = cached(cache, 3, [&] {
      torch::Tensor out = activate(shared_pre);
      if (h == c0) out = out + shared_in.narrow(0, 0, plan.shared_rows[0]);
      if (options_.dropout > 0) out = torch::dropout(out, options_.dropout, is_training());
      return out;
    });
  };
  if (by_class != nullptr) {
    // One row per class entry (model/config_classes.h); dropout draws nothing here.
    const int64_t nc = configs.size(1);
    const ClassRows configured = by_class->rows;
    const torch::Tensor flat_configs = configs.reshape({s * nc, cc});
    const torch::Tensor config_entries = flat_configs.index_select(
        0, configured.configs_of * nc + plan.config_position.index_select(0, configured.rows_of));
    const torch::Tensor projected = parallel_matmul(config_entries, w_config);  // [U0, 3H]
    const torch::Tensor classes =
        next_hop_classes(by_class->classes, plan.layers[0].change, rows);
    const ClassRows level = class_rows(classes);
    torch::Tensor entries =
        activate(class_change_aggregate(projected, configured, level, plan.layers[0].change) +
                 shared_pre.index_select(0, level.rows_of));
    shared_output();
    if (h == c0) {  // the input rows: the node's own state, its configuration where it has one
      const int64_t a0 = plan.reach[0];
      const torch::Tensor configurable = level.rows_of < a0;
      const torch::Tensor config_index = torch::where(
          configurable,
          level.configs_of * nc +
              plan.config_position.index_select(0, level.rows_of.clamp_max(a0 - 1)),
          torch::full_like(level.rows_of, s * nc));
      entries = entries +
                torch::cat({independent.index_select(0, plan.order.index_select(0, level.rows_of)),
                            torch::cat({flat_configs, torch::zeros({1, cc})})
                                .index_select(0, config_index)},
                           -1);
    }
    by_class->classes = classes;
    by_class->rows = level;
    return entries;
  }
  const torch::Tensor config_rows = configs.index_select(1, plan.config_position).transpose(0, 1);
  const torch::Tensor projected = parallel_matmul(config_rows, w_config);  // [a0, S, 3H]
  torch::Tensor reached = activate(pre_activation_with_change(plan, 1, shared_pre, projected));
  shared_output();
  if (h == c0) {
    reached = reached + torch::cat({independent.index_select(0, plan.order.narrow(0, 0, rows))
                                        .unsqueeze(1)
                                        .expand({rows, s, c1}),
                                    pad_rows(config_rows, rows)},
                                   -1);
  }
  if (options_.dropout > 0) reached = torch::dropout(reached, options_.dropout, is_training());
  return reached;
}

torch::Tensor RankerImpl::cached(SharedCache* cache, size_t slot,
                                 const std::function<torch::Tensor()>& compute) {
  if (cache == nullptr) return compute();
  if (cache->tensors.size() <= slot) cache->tensors.resize(slot + 1);
  torch::Tensor& kept = cache->tensors[slot];
  if (!kept.defined()) kept = compute();
  return kept;
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

RankerImpl::SparseStates RankerImpl::sparse_states(const GraphTensors& g, const Slate& slate,
                                                   bool final_shared, SharedCache* cache) {
  const int64_t s = slate.config_features.size(0), n = g.num_nodes;
  const bool tile = options_.kind == data::ConfigKind::Tile;
  const int64_t num_layers = static_cast<int64_t>(layers_.size());
  // The cache is exact only when nothing is recorded for a backward and dropout draws nothing.
  if (cache != nullptr && (torch::GradMode::is_enabled() || (options_.dropout > 0 && is_training())))
    cache = nullptr;
  if (cache != nullptr && (cache->graph != &g || cache->final_shared != final_shared)) {
    *cache = SharedCache{&g, final_shared, nullptr, {}};
  }
  if (cache != nullptr && !cache->plan) {
    cache->plan = std::make_shared<const ConfigReachPlan>(
        plan_config_reach(g, num_layers, tile, final_shared));
  }
  SparseStates states{cache != nullptr ? *cache->plan
                                       : plan_config_reach(g, num_layers, tile, final_shared),
                      {}, {}};
  const ConfigReachPlan& plan = states.plan;
  const torch::Tensor independent = cached(cache, 0, [&] { return node_state(g); });
  const torch::Tensor configs = encode_configs(slate);
  const int64_t c1 = independent.size(1), cc = configs.size(-1);

  // "reached": labels [0, reach[l]) whose state depends on the configuration, one row per
  // configuration; "shared": the state of labels [0, shared rows) when no configuration reaches
  // them, one row per label (every node unless final_shared is false).
  torch::Tensor& reached = states.reached;
  torch::Tensor& shared = states.shared;
  // Configurations that agree on the configurable nodes a row has reached so far hold the same
  // state there (model/config_classes.h): while they share enough rows, layers run on one row per
  // class entry ("by class"). Not while dropout draws: members of a class then differ.
  ClassLevel by_class;
  if (!tile && row_sharing_enabled() && !(options_.dropout > 0 && is_training()) &&
      plan.reach[0] > 0) {
    by_class.classes = configurable_node_classes(slate.config_features, plan.config_position);
    by_class.rows = class_rows(by_class.classes);
    if (!by_class.rows.worth_sharing()) by_class.classes = torch::Tensor();
  }
  torch::Tensor entries;  // by class: [U, H], one row per entry of by_class.rows
  auto leave_classes = [&] {
    reached = spread_entries(entries, by_class.rows.sharing.spread, s);
    by_class.classes = torch::Tensor();
  };
  int64_t first_generic_layer = 1;
  if (tile) {
    reached = torch::cat({independent.index_select(0, plan.order).unsqueeze(1).expand({n, s, c1}),
                          configs.unsqueeze(0).expand({n, s, cc})},
                         -1);
  } else {
    // The shared state lives in the plan's labels, on the rows the shared pass reads.
    const int64_t inputs = plan.shared_inputs[0];
    shared = cached(cache, 1, [&] {
      return torch::cat({independent.index_select(0, plan.order.narrow(0, 0, inputs)),
                         torch::zeros({inputs, cc})},
                        -1);
    });
    if (by_class.classes.defined()) {
      entries = first_layout_layer(plan, independent, configs, shared, cache, &by_class);
    } else {
      reached = first_layout_layer(plan, independent, configs, shared, cache, nullptr);
    }
    first_generic_layer = 2;
    if (by_class.classes.defined() && !by_class.rows.worth_sharing()) leave_classes();
  }

  // Layer `layer` (0-based, >= 1) by its change: the layer's input is shared + delta, where
  // delta is non-zero only on the rows reached before it ([0, before)), so its pre-activation is
  // the shared pre-activation plus the projected delta, aggregated. The per-configuration matmul
  // then covers the rows reached *before* the layer rather than after it. Reads `reached`, or
  // `entries` by class (then moves by_class one hop on); replaces `shared` by the layer's shared
  // state when update_shared; returns the new reached rows [0, rows) (by class: their entries).
  auto delta_layer = [&](size_t layer, bool update_shared) {
    const size_t l = layer + 1;  // the plan's 1-based layer
    const bool classes = by_class.classes.defined();
    const int64_t c = (classes ? entries : reached).size(-1);
    const int64_t before = plan.reach[l - 1], rows = plan.reach[l];
    torch::nn::Linear& linear = layers_[layer];
    const int64_t h = linear->weight.size(0);
    const torch::Tensor shared_in = shared.contiguous();
    const torch::Tensor shared_pre =
        cached(cache, 2 * l, [&] { return shared_pre_activation(linear, shared_in, plan, l); });
    // The weight's self, operand-mean and user-mean blocks stacked: one matmul projects the change
    // for all three ([before, S, 3H]).
    const torch::Tensor& w = linear->weight;
    const torch::Tensor w_blocks =
        torch::cat({w.narrow(1, 0, c), w.narrow(1, c, c), w.narrow(1, 2 * c, c)}, 0);
    torch::Tensor next;
    if (classes) {
      const ClassRows& level = by_class.rows;  // the entries of rows [0, before)
      const torch::Tensor delta = entries - shared_in.index_select(0, level.rows_of);
      const ChangeCsr& change = plan.layers[l - 1].change;
      const torch::Tensor next_classes = next_hop_classes(by_class.classes, change, rows);
      const ClassRows next_level = class_rows(next_classes);
      next = activate(
          class_change_aggregate(parallel_matmul(delta, w_blocks), level, next_level, change) +
          shared_pre.index_select(0, next_level.rows_of));
      if (h == c) {  // residual: the entry's input row, reached (an entry of `level`) or shared
        const torch::Tensor input_index = torch::where(
            next_level.rows_of < before,
            level.sharing.spread.index_select(
                0, (next_level.rows_of * s + next_level.configs_of).clamp_max(before * s - 1)),
            entries.size(0) + next_level.rows_of);
        next = next +
               torch::cat({entries, shared_in.narrow(0, 0, rows)}).index_select(0, input_index);
      }
      by_class.classes = next_classes;
      by_class.rows = next_level;
    } else {
      const torch::Tensor delta = reached - shared_in.narrow(0, 0, before).unsqueeze(1);
      next = activate(
          pre_activation_with_change(plan, l, shared_pre, parallel_matmul(delta, w_blocks)));
      if (h == c) {  // residual: the layer's input rows, reached or still shared
        torch::Tensor input_rows = reached;
        if (rows > before) {
          const torch::Tensor border = shared_in.slice(0, before, rows);
          input_rows = torch::cat({reached, border.unsqueeze(1).expand({rows - before, s, c})}, 0);
        }
        next = next + input_rows;
      }
    }
    if (options_.dropout > 0) next = torch::dropout(next, options_.dropout, is_training());
    if (update_shared) {
      shared = cached(cache, 2 * l + 1, [&] {
        torch::Tensor out = activate(shared_pre);
        if (h == c) out = out + shared_in.narrow(0, 0, plan.shared_rows[l - 1]);
        if (options_.dropout > 0) out = torch::dropout(out, options_.dropout, is_training());
        return out;
      });
    }
    return next;
  };

  for (int64_t l = first_generic_layer; l <= num_layers; ++l) {
    const ReachLayerCsr& csr = plan.layers[l - 1];
    const int64_t before = plan.reach[l - 1], rows = plan.reach[l], inputs = plan.reach[l + 1];
    // The shared state is only read where the configuration has not yet reached; after the
    // last layer only by the per-graph constant.
    const bool update_shared =
        shared.defined() && plan.reach[l] < n && (final_shared || l < num_layers);
    // By the change when it saves at least a tenth of the per-configuration rows (a layout
    // configuration that has not yet spread over the graph), or while configurations share rows
    // by class (the change then costs one row per entry). Both ways are exact, the change even
    // once the configuration has reached every node and the shared state is no longer updated:
    // the change then covers every row, whatever state it is taken from.
    if (shared.defined() && (by_class.classes.defined() || before * 10 <= rows * 9)) {
      if (by_class.classes.defined()) {
        entries = delta_layer(static_cast<size_t>(l - 1), update_shared);
        if (!by_class.rows.worth_sharing()) leave_classes();
      } else {
        reached = delta_layer(static_cast<size_t>(l - 1), update_shared);
      }
      continue;
    }
    if (by_class.classes.defined()) leave_classes();
    torch::Tensor x = reached;
    if (inputs > before) {
      const torch::Tensor border = shared.slice(0, before, inputs);
      x = torch::cat({reached, border.unsqueeze(1).expand({inputs - before, s, border.size(1)})},
                     0);
    }
    x = x.contiguous();
    const torch::Tensor operands =
        mean_aggregate(x, csr.operand_offsets, csr.operand_indices, csr.operand_reverse_offsets,
                       csr.operand_reverse_indices);
    const torch::Tensor users = mean_aggregate(x, csr.user_offsets, csr.user_indices,
                                               csr.user_reverse_offsets, csr.user_reverse_indices);
    torch::Tensor next = sage_layer(l - 1, x.narrow(0, 0, rows), operands, users);
    if (update_shared) {
      shared = cached(cache, static_cast<size_t>(2 * l + 1), [&] {
        const torch::Tensor in = shared.contiguous();
        const auto [shared_operands, shared_users] = shared_means(plan, static_cast<size_t>(l), in);
        return sage_layer(static_cast<size_t>(l - 1), in.narrow(0, 0, plan.shared_rows[l - 1]),
                          shared_operands, shared_users);
      });
    }
    reached = next;
  }
  if (by_class.classes.defined()) {
    states.entries = entries;
    states.spread = by_class.rows.sharing.spread;
  }
  states.slate = s;
  return states;
}

torch::Tensor RankerImpl::SparseStates::reached_rows() const {
  if (!entries.defined()) return reached;
  return spread_entries(entries, spread, slate);
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
