// RankerImpl's sparse forward (ranker.h, sparse_states): the SAGE layers computed only where a
// configuration reaches, on top of one configuration-independent ("shared") pass, with the
// reach plan of model/forward/config_reach.h and, while configurations agree on what a row has reached,
// one row per class (model/forward/config_classes.h).
//
// Every layer is linear before its activation, and mean aggregation commutes with a linear map,
// so a layer's pre-activation is the shared pre-activation plus the projected change of its
// input, aggregated (change_aggregate). The per-configuration matmul then covers the rows
// reached *before* the layer rather than after it.
#include <functional>
#include <string>

#include "model/forward/config_classes.h"
#include "model/forward/config_reach.h"
#include "model/forward/ranker.h"
#include "model/kernels/aggregate.h"
#include "model/kernels/change_aggregate.h"
#include "model/kernels/parallel_matmul.h"

namespace graphcost::model {

namespace {

// compute(), or the value kept in *slot (computed there the first time); no slot: compute().
torch::Tensor cached(torch::Tensor* slot, const std::function<torch::Tensor()>& compute) {
  if (slot == nullptr) return compute();
  if (!slot->defined()) *slot = compute();
  return *slot;
}

// The slot of plan layer l's (1-based) `field` in cache; null without a cache.
torch::Tensor* layer_slot(RankerImpl::SharedCache* cache, int64_t l,
                          torch::Tensor RankerImpl::SharedCache::Layer::*field) {
  if (cache == nullptr) return nullptr;
  if (static_cast<int64_t>(cache->layers.size()) < l) cache->layers.resize(static_cast<size_t>(l));
  return &(cache->layers[l - 1].*field);
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
// blocks.
torch::Tensor pre_activation_with_change(const ConfigReachPlan& plan, size_t l,
                                         const torch::Tensor& shared_pre,
                                         const torch::Tensor& projected) {
  const int64_t rows = plan.reach[l];
  // The shared rows are added inside the aggregation's pass over [rows, S, H].
  return change_aggregate(projected.contiguous(), plan.layers[l - 1].change, rows,
                          shared_pre.narrow(0, 0, rows).contiguous());
}

// A weight's three input blocks (self, operand mean, user mean), columns [offset, offset +
// width) of each block of `block` columns, stacked: one matmul projects a change for all three.
torch::Tensor stacked_blocks(const torch::Tensor& w, int64_t block, int64_t offset, int64_t width) {
  return torch::cat({w.narrow(1, offset, width), w.narrow(1, block + offset, width),
                     w.narrow(1, 2 * block + offset, width)},
                    0);
}

}  // namespace

// The state of one sparse_states pass between layers, all in the plan's labels.
struct RankerImpl::SparsePass {
  // Configurations that agree on the configurable nodes a row has reached so far hold the same
  // state there: while they share enough rows, layers run on one row per class entry.
  struct ClassLevel {
    torch::Tensor classes;  // [rows, S]; undefined: not by class
    ClassRows rows;         // its entries
    bool active() const { return classes.defined(); }
  };

  SparseStates& states;  // reached [rows, S, H] (not by class) and shared [shared rows, H]
  SharedCache* cache;    // null: nothing kept
  const torch::Tensor independent;  // [n, C1], configuration-independent node inputs
  const torch::Tensor configs;      // the encoded configurations (encode_configs)
  int64_t slate = 0;                // S
  ClassLevel by_class;              // active: the reached state is `entries`
  torch::Tensor entries;            // by class: [U, H], one row per entry of by_class.rows

  const ConfigReachPlan& plan() const { return states.plan; }

  // Leaves the classes: every (row, configuration) gets its own row again.
  void leave_classes() {
    states.reached = spread_entries(entries, by_class.rows.sharing.spread, slate);
    by_class.classes = torch::Tensor();
  }

  // Keeps a layer's output as the reached state: the entries while by class (leaving the classes
  // once they no longer share enough rows), else the reached rows.
  void keep(const torch::Tensor& output) {
    if (!by_class.active()) {
      states.reached = output;
      return;
    }
    entries = output;
    if (!by_class.rows.worth_sharing()) leave_classes();
  }

  // Plan layer l's pre-activation on the reached rows from `projected`, the change of its input
  // projected by the weight blocks: by class, one row per entry of the classes one hop further
  // [U', H] (by_class moves there); else [rows, S, H].
  torch::Tensor changed_pre_activation(int64_t l, const torch::Tensor& shared_pre,
                                       const torch::Tensor& projected) {
    if (!by_class.active()) return pre_activation_with_change(plan(), l, shared_pre, projected);
    const ChangeCsr& change = plan().layers[l - 1].change;
    ClassLevel next;
    next.classes = next_hop_classes(by_class.classes, change, plan().reach[l]);
    next.rows = class_rows(next.classes);
    torch::Tensor pre = class_change_aggregate(projected, by_class.rows, next.rows, change) +
                        shared_pre.index_select(0, next.rows.rows_of);
    by_class = next;
    return pre;
  }
};

RankerImpl::SparseStates RankerImpl::sparse_states(const GraphTensors& g, const Slate& slate,
                                                   bool final_shared, SharedCache* cache) {
  const int64_t s = slate.config_features.size(0), n = g.num_nodes;
  const bool tile = options_.kind == data::ConfigKind::Tile;
  const int64_t num_layers = static_cast<int64_t>(layers_.size());
  const bool dropout_draws = options_.dropout > 0 && is_training();
  // The cache is exact only when nothing is recorded for a backward and dropout draws nothing.
  if (cache != nullptr && (torch::GradMode::is_enabled() || dropout_draws)) cache = nullptr;
  if (cache != nullptr && (cache->graph != &g || cache->final_shared != final_shared)) {
    *cache = SharedCache{};
    cache->graph = &g;
    cache->final_shared = final_shared;
  }
  if (cache != nullptr && !cache->plan) {
    cache->plan = std::make_shared<const ConfigReachPlan>(
        plan_config_reach(g, num_layers, tile, final_shared));
  }
  SparseStates states{cache != nullptr ? *cache->plan
                                       : plan_config_reach(g, num_layers, tile, final_shared),
                      {}, {}, {}, {}};
  const ConfigReachPlan& plan = states.plan;
  // "reached": labels [0, reach[l]) whose state depends on the configuration, one row per
  // configuration; "shared": the state of labels [0, shared rows) when no configuration reaches
  // them, one row per label (every node unless final_shared is false).
  SparsePass pass{states, cache,
                  cached(cache ? &cache->node_states : nullptr, [&] { return node_state(g); }),
                  encode_configs(slate), s, {}, {}};
  // By class only while dropout draws nothing: members of a class then differ.
  if (!tile && share_rows_ && !dropout_draws && plan.reach[0] > 0) {
    pass.by_class.classes = configurable_node_classes(slate.config_features, plan.config_position);
    pass.by_class.rows = class_rows(pass.by_class.classes);
    if (!pass.by_class.rows.worth_sharing()) pass.by_class.classes = torch::Tensor();
  }
  int64_t first_generic_layer = 1;
  if (tile) {
    const int64_t c1 = pass.independent.size(1), cc = pass.configs.size(-1);
    states.reached =
        torch::cat({pass.independent.index_select(0, plan.order).unsqueeze(1).expand({n, s, c1}),
                    pass.configs.unsqueeze(0).expand({n, s, cc})},
                   -1);
  } else {
    first_layout_layer(pass);
    first_generic_layer = 2;
  }
  for (int64_t l = first_generic_layer; l <= num_layers; ++l) {
    const int64_t before = plan.reach[l - 1], rows = plan.reach[l];
    // The shared state is only read where the configuration has not yet reached; after the
    // last layer only by the per-graph constant.
    const bool update_shared =
        states.shared.defined() && rows < n && (final_shared || l < num_layers);
    // By the change when it saves at least a tenth of the per-configuration rows (a layout
    // configuration that has not yet spread over the graph), or while configurations share rows
    // by class (the change then costs one row per entry). Both ways are exact, the change even
    // once the configuration has reached every node and the shared state is no longer updated:
    // the change then covers every row, whatever state it is taken from.
    if (states.shared.defined() && (pass.by_class.active() || before * 10 <= rows * 9)) {
      delta_layer(pass, l, update_shared);
    } else {
      full_layer(pass, l, update_shared);
    }
  }
  if (pass.by_class.active()) {
    states.entries = pass.entries;
    states.spread = pass.by_class.rows.sharing.spread;
  }
  states.slate = s;
  return states;
}

// Layer 1 for layout slates: its input splits into the configuration-independent part (the
// shared pass) and the configuration part, non-zero only at the configurable nodes: projected
// there ([nc, S, 3H], or one row per class entry), then aggregated. The shared state enters as
// the plan's first shared inputs and leaves as the layer's shared rows.
void RankerImpl::first_layout_layer(SparsePass& pass) {
  const ConfigReachPlan& plan = pass.plan();
  const torch::Tensor& independent = pass.independent;
  const torch::Tensor& configs = pass.configs;
  const int64_t s = configs.size(0), rows = plan.reach[1];
  const int64_t c1 = independent.size(1), cc = configs.size(-1), c0 = c1 + cc;
  torch::nn::Linear& layer = layers_[0];
  const int64_t h = layer->weight.size(0);
  const int64_t inputs = plan.shared_inputs[0];
  const torch::Tensor shared_in =
      cached(pass.cache ? &pass.cache->first_shared_input : nullptr, [&] {
        return torch::cat({independent.index_select(0, plan.order.narrow(0, 0, inputs)),
                           torch::zeros({inputs, cc})},
                          -1);
      }).contiguous();
  const torch::Tensor shared_pre =
      cached(layer_slot(pass.cache, 1, &SharedCache::Layer::shared_pre_activation),
             [&] { return shared_pre_activation(layer, shared_in, plan, 1); });
  const torch::Tensor w_config = stacked_blocks(layer->weight, c0, c1, cc);
  torch::Tensor output;
  if (pass.by_class.active()) {
    // One row per class entry of the configurable nodes; dropout draws nothing here.
    const int64_t nc = configs.size(1);
    const ClassRows& configured = pass.by_class.rows;
    const torch::Tensor flat_configs = configs.reshape({s * nc, cc});
    const torch::Tensor config_entries = flat_configs.index_select(
        0, configured.configs_of * nc + plan.config_position.index_select(0, configured.rows_of));
    const torch::Tensor projected = parallel_matmul(config_entries, w_config);  // [U0, 3H]
    output = activate(pass.changed_pre_activation(1, shared_pre, projected));
    update_shared_output(pass, 1, shared_pre, shared_in, c0);
    if (h == c0) {  // the input rows: the node's own state, its configuration where it has one
      const ClassRows& level = pass.by_class.rows;
      const int64_t a0 = plan.reach[0];
      const torch::Tensor config_index = torch::where(
          level.rows_of < a0,
          level.configs_of * nc +
              plan.config_position.index_select(0, level.rows_of.clamp_max(a0 - 1)),
          torch::full_like(level.rows_of, s * nc));
      output = output +
               torch::cat({independent.index_select(0, plan.order.index_select(0, level.rows_of)),
                           torch::cat({flat_configs, torch::zeros({1, cc})})
                               .index_select(0, config_index)},
                          -1);
    }
  } else {
    const torch::Tensor config_rows =
        configs.index_select(1, plan.config_position).transpose(0, 1);
    const torch::Tensor projected = parallel_matmul(config_rows, w_config);  // [a0, S, 3H]
    output = activate(pass.changed_pre_activation(1, shared_pre, projected));
    // The shared output first: its dropout draws come before the reached rows'.
    update_shared_output(pass, 1, shared_pre, shared_in, c0);
    if (h == c0) {
      output = output + torch::cat({independent.index_select(0, plan.order.narrow(0, 0, rows))
                                        .unsqueeze(1)
                                        .expand({rows, s, c1}),
                                    pad_rows(config_rows, rows)},
                                   -1);
    }
    if (options_.dropout > 0) output = torch::dropout(output, options_.dropout, is_training());
  }
  pass.keep(output);
}

// Plan layer l (>= 1) by its change: the input is shared + delta, delta non-zero only on the rows
// reached before the layer ([0, before)). Reads the reached rows, or the entries by class (then
// moves the classes one hop on); replaces the shared state by the layer's when update_shared.
void RankerImpl::delta_layer(SparsePass& pass, int64_t l, bool update_shared) {
  const ConfigReachPlan& plan = pass.plan();
  const bool by_class = pass.by_class.active();
  const torch::Tensor& reached = by_class ? pass.entries : pass.states.reached;
  const int64_t s = pass.slate, c = reached.size(-1);
  const int64_t before = plan.reach[l - 1], rows = plan.reach[l];
  torch::nn::Linear& linear = layers_[l - 1];
  const int64_t h = linear->weight.size(0);
  const torch::Tensor shared_in = pass.states.shared.contiguous();
  const torch::Tensor shared_pre =
      cached(layer_slot(pass.cache, l, &SharedCache::Layer::shared_pre_activation),
             [&] { return shared_pre_activation(linear, shared_in, plan, l); });
  const torch::Tensor w_blocks = stacked_blocks(linear->weight, c, 0, c);  // [3H, C]
  torch::Tensor next;
  if (by_class) {
    const ClassRows level = pass.by_class.rows;  // the entries of rows [0, before)
    const torch::Tensor delta = reached - shared_in.index_select(0, level.rows_of);
    next = activate(pass.changed_pre_activation(l, shared_pre, parallel_matmul(delta, w_blocks)));
    if (h == c) {  // residual: the entry's input row, reached (an entry of `level`) or shared
      const ClassRows& next_level = pass.by_class.rows;
      const torch::Tensor input_index = torch::where(
          next_level.rows_of < before,
          level.sharing.spread.index_select(
              0, (next_level.rows_of * s + next_level.configs_of).clamp_max(before * s - 1)),
          reached.size(0) + next_level.rows_of);
      next = next +
             torch::cat({reached, shared_in.narrow(0, 0, rows)}).index_select(0, input_index);
    }
  } else {
    const torch::Tensor delta = reached - shared_in.narrow(0, 0, before).unsqueeze(1);
    next = activate(pass.changed_pre_activation(l, shared_pre, parallel_matmul(delta, w_blocks)));
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
  if (update_shared) update_shared_output(pass, l, shared_pre, shared_in, c);
  pass.keep(next);
}

// Plan layer l computed in full on every row it reaches (the change would save little): the
// reached rows and the border of shared rows they read, one row per configuration.
void RankerImpl::full_layer(SparsePass& pass, int64_t l, bool update_shared) {
  if (pass.by_class.active()) pass.leave_classes();
  const ConfigReachPlan& plan = pass.plan();
  const ReachLayerCsr& csr = plan.layers[l - 1];
  const int64_t s = pass.slate;
  const int64_t before = plan.reach[l - 1], rows = plan.reach[l], inputs = plan.reach[l + 1];
  torch::Tensor& reached = pass.states.reached;
  torch::Tensor& shared = pass.states.shared;
  torch::Tensor x = reached;
  if (inputs > before) {
    const torch::Tensor border = shared.slice(0, before, inputs);
    x = torch::cat({reached, border.unsqueeze(1).expand({inputs - before, s, border.size(1)})}, 0);
  }
  x = x.contiguous();
  const torch::Tensor operands =
      mean_aggregate(x, csr.operand_offsets, csr.operand_indices, csr.operand_reverse_offsets,
                     csr.operand_reverse_indices);
  const torch::Tensor users = mean_aggregate(x, csr.user_offsets, csr.user_indices,
                                             csr.user_reverse_offsets, csr.user_reverse_indices);
  torch::Tensor next = sage_layer(l - 1, x.narrow(0, 0, rows), operands, users);
  if (update_shared) {
    shared = cached(layer_slot(pass.cache, l, &SharedCache::Layer::shared_output), [&] {
      const torch::Tensor in = shared.contiguous();
      const auto [shared_operands, shared_users] = shared_means(plan, static_cast<size_t>(l), in);
      return sage_layer(static_cast<size_t>(l - 1), in.narrow(0, 0, plan.shared_rows[l - 1]),
                        shared_operands, shared_users);
    });
  }
  reached = next;
}

// The shared state after plan layer l from its shared pre-activation: activation, the residual
// where the layer keeps the width of its input (input_width), dropout.
void RankerImpl::update_shared_output(SparsePass& pass, int64_t l, const torch::Tensor& shared_pre,
                                      const torch::Tensor& shared_in, int64_t input_width) {
  pass.states.shared = cached(layer_slot(pass.cache, l, &SharedCache::Layer::shared_output), [&] {
    torch::Tensor out = activate(shared_pre);
    if (shared_pre.size(-1) == input_width)
      out = out + shared_in.narrow(0, 0, pass.plan().shared_rows[l - 1]);
    if (options_.dropout > 0) out = torch::dropout(out, options_.dropout, is_training());
    return out;
  });
}

torch::Tensor RankerImpl::SparseStates::reached_rows() const {
  if (!entries.defined()) return reached;
  return spread_entries(entries, spread, slate);
}

}  // namespace graphcost::model
