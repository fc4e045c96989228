#include "synth/model_programs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "synth/program_builder.h"
#include "synth/random.h"

namespace graphcost::synth {

namespace {

using Dims = std::vector<int64_t>;

// Filler elementwise work per layer, split between the forward and the backward pass.
struct BodyPlan {
  int64_t layers = 1;
  int64_t filler = 0;
};

int32_t sgd_update(ProgramBuilder& b, int32_t weight, int32_t gradient) {
  return b.elementwise(opcode::kSubtract, weight,
                       b.elementwise(opcode::kMultiply, gradient, b.splat_like(gradient)));
}

// Normalises x over its last dim (layer norm) or over all but the last (batch norm).
int32_t normalize(ProgramBuilder& b, int32_t x, bool over_last) {
  const Dims dims = b.at(x).dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  Dims reduced, kept;
  for (int64_t d = 0; d < rank; ++d) {
    bool is_reduced = over_last ? d == rank - 1 : d != rank - 1;
    (is_reduced ? reduced : kept).push_back(d);
  }
  int32_t mean = b.reduce(x, reduced);
  mean = b.elementwise(opcode::kDivide, mean, b.splat_like(mean));
  int32_t centred = b.elementwise(opcode::kSubtract, x, b.broadcast(mean, dims, kept));
  int32_t variance = b.reduce(b.elementwise(opcode::kMultiply, centred, centred), reduced);
  int32_t scale =
      b.elementwise(opcode::kRsqrt, b.elementwise(opcode::kAdd, variance, b.splat_like(variance)));
  return b.elementwise(opcode::kMultiply, centred, b.broadcast(scale, dims, kept));
}

int32_t softmax_last(ProgramBuilder& b, int32_t x) {
  const Dims dims = b.at(x).dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  Dims kept;
  for (int64_t d = 0; d + 1 < rank; ++d) kept.push_back(d);
  int32_t peak = b.reduce(x, {rank - 1}, opcode::kMaximum);
  int32_t shifted = b.elementwise(opcode::kSubtract, x, b.broadcast(peak, dims, kept));
  int32_t e = b.elementwise(opcode::kExponential, shifted);
  int32_t total = b.reduce(e, {rank - 1});
  return b.elementwise(opcode::kDivide, e, b.broadcast(total, dims, kept));
}

void build_convolutional(ProgramBuilder& b, Random& r, const BodyPlan& plan,
                         std::vector<int32_t>* outputs) {
  const int type = r.bernoulli(0.5) ? element_type::kBf16 : element_type::kF32;
  const int64_t batch = r.pick(Dims{8, 16, 32, 64, 128});
  int64_t spatial = r.pick(Dims{28, 32, 56, 64, 112, 224});
  const int64_t classes = r.pick(Dims{10, 100, 1000});
  const int32_t weights = b.tuple_parameter(2 * plan.layers + 2);
  int32_t x = b.parameter({batch, spatial, spatial, 3}, type);
  const int32_t labels = b.parameter({batch, classes}, element_type::kF32);
  struct Saved {
    int32_t input, kernel, bias, output;
    int64_t window;
    bool pooled;
  };
  std::vector<Saved> saved;
  int64_t channels = 3;
  const int64_t forward_filler = plan.filler / 2, backward_filler = plan.filler - forward_filler;
  for (int64_t l = 0; l < plan.layers; ++l) {
    int64_t out_channels = l == 0 ? r.pick(Dims{32, 64}) : channels;
    if (l > 0 && r.bernoulli(0.3)) out_channels = std::min<int64_t>(1024, channels * 2);
    const int64_t window = l == 0 ? r.pick(Dims{3, 5, 7}) : r.pick(Dims{1, 3, 3, 3});
    const int64_t stride = spatial > 8 && r.bernoulli(0.2) ? 2 : 1;
    const int32_t kernel =
        b.get_tuple_element(weights, {window, window, channels, out_channels}, type);
    const int32_t bias = b.get_tuple_element(weights, {out_channels}, type);
    int32_t y = b.convolution(x, kernel, stride);
    y = b.elementwise(opcode::kAdd, y, b.broadcast(bias, b.at(y).dims, {3}));
    if (r.bernoulli(0.5)) y = normalize(b, y, false);
    y = b.elementwise_chain(y, forward_filler);
    y = b.elementwise(opcode::kMaximum, y, b.splat_like(y));
    const bool pooled = b.at(y).dims[1] > 4 && r.bernoulli(0.2);
    const int32_t output = y;
    if (pooled) y = b.reduce_window(y, 2, 2);
    saved.push_back({x, kernel, bias, output, window, pooled});
    x = y;
    channels = out_channels;
    spatial = b.at(x).dims[1];
  }
  // Classifier head and loss.
  const int64_t flat_size = spatial * spatial * channels;
  const int32_t flat = b.reshape(x, {batch, flat_size});
  const int32_t dense = b.get_tuple_element(weights, {flat_size, classes}, type);
  int32_t logits = b.dot(flat, dense, {batch, classes});
  if (type != element_type::kF32) logits = b.convert(logits, element_type::kF32);
  const int32_t probabilities = softmax_last(b, logits);
  const int32_t loss = b.reduce(
      b.elementwise(opcode::kMultiply, b.elementwise(opcode::kLog, probabilities), labels), {0, 1});
  outputs->push_back(loss);
  // Backward pass: gradients flow back through every layer, reusing forward activations.
  int32_t g = b.elementwise(opcode::kSubtract, probabilities, labels);
  if (type != element_type::kF32) g = b.convert(g, type);
  const int32_t dense_grad = b.dot(flat, g, {flat_size, classes});
  outputs->push_back(sgd_update(b, dense, dense_grad));
  g = b.reshape(b.dot(g, dense, {batch, flat_size}), b.at(x).dims);
  for (int64_t l = plan.layers - 1; l >= 0; --l) {
    const Saved& s = saved[l];
    if (s.pooled) g = b.fusion({g, s.output}, b.at(s.output).dims, type);
    const int32_t zero = b.splat_like(s.output);
    g = b.select(b.elementwise(opcode::kCompare, s.output, zero), g, zero);
    g = b.elementwise_chain(g, backward_filler);
    const int32_t bias_grad = b.reduce(g, {0, 1, 2});
    outputs->push_back(sgd_update(b, s.bias, bias_grad));
    const int32_t kernel_grad = b.convolution_to(s.input, g, b.at(s.kernel).dims, s.window);
    outputs->push_back(sgd_update(b, s.kernel, kernel_grad));
    if (l > 0) g = b.convolution_to(g, s.kernel, b.at(s.input).dims, s.window);
  }
}

// Splits [b, s, d] into heads: reshape to [b, s, h, d/h], transpose to [b, h, s, d/h].
int32_t split_heads(ProgramBuilder& b, int32_t x, int64_t heads) {
  const Dims d = b.at(x).dims;
  return b.transpose(b.reshape(x, {d[0], d[1], heads, d[2] / heads}), {0, 2, 1, 3});
}

int32_t merge_heads(ProgramBuilder& b, int32_t x) {
  const Dims d = b.at(x).dims;
  return b.reshape(b.transpose(x, {0, 2, 1, 3}), {d[0], d[2], d[1] * d[3]});
}

void build_transformer(ProgramBuilder& b, Random& r, const BodyPlan& plan,
                       std::vector<int32_t>* outputs) {
  const int type = r.bernoulli(0.7) ? element_type::kBf16 : element_type::kF32;
  const int64_t batch = r.pick(Dims{1, 2, 4, 8, 16});
  const int64_t seq = r.pick(Dims{64, 128, 256, 512});
  const int64_t model = r.pick(Dims{256, 512, 768, 1024});
  const int64_t heads = model / 64, hidden = 4 * model;
  const int64_t vocab = r.pick(Dims{1000, 8192, 32000});
  const int32_t weights = b.tuple_parameter(6 * plan.layers + 1);
  const int32_t tokens = b.parameter({batch, seq}, element_type::kS32);
  const int32_t embedding = b.get_tuple_element(weights, {vocab, model}, type);
  int32_t x = b.fusion({tokens, embedding}, {batch, seq, model}, type);  // the embedding lookup
  const int64_t forward_filler = plan.filler / 2, backward_filler = plan.filler - forward_filler;
  struct Saved {
    int32_t ln1, q, k, v, p, ctx, ln2, up, wq, wk, wv, wo, w1, w2;
  };
  std::vector<Saved> saved;
  const Dims act = {batch, seq, model};
  for (int64_t l = 0; l < plan.layers; ++l) {
    Saved s;
    s.ln1 = normalize(b, x, true);
    s.wq = b.get_tuple_element(weights, {model, model}, type);
    s.wk = b.get_tuple_element(weights, {model, model}, type);
    s.wv = b.get_tuple_element(weights, {model, model}, type);
    s.wo = b.get_tuple_element(weights, {model, model}, type);
    s.w1 = b.get_tuple_element(weights, {model, hidden}, type);
    s.w2 = b.get_tuple_element(weights, {hidden, model}, type);
    s.q = split_heads(b, b.dot(s.ln1, s.wq, act), heads);
    s.k = split_heads(b, b.dot(s.ln1, s.wk, act), heads);
    s.v = split_heads(b, b.dot(s.ln1, s.wv, act), heads);
    int32_t scores = b.dot(s.q, s.k, {batch, heads, seq, seq});
    scores = b.elementwise(opcode::kMultiply, scores, b.splat_like(scores));
    s.p = softmax_last(b, scores);
    s.ctx = merge_heads(b, b.dot(s.p, s.v, {batch, heads, seq, model / heads}));
    x = b.elementwise(opcode::kAdd, x, b.dot(s.ctx, s.wo, act));
    s.ln2 = normalize(b, x, true);
    s.up = b.dot(s.ln2, s.w1, {batch, seq, hidden});
    // tanh-approximated GELU.
    int32_t cube =
        b.elementwise(opcode::kMultiply, s.up, b.elementwise(opcode::kMultiply, s.up, s.up));
    int32_t inner = b.elementwise(opcode::kAdd, s.up,
                                  b.elementwise(opcode::kMultiply, cube, b.splat_like(cube)));
    int32_t gate =
        b.elementwise(opcode::kTanh, b.elementwise(opcode::kMultiply, inner, b.splat_like(inner)));
    gate = b.elementwise(opcode::kAdd, gate, b.splat_like(gate));
    int32_t gelu = b.elementwise(opcode::kMultiply, s.up, gate);
    x = b.elementwise(opcode::kAdd, x, b.dot(gelu, s.w2, act));
    x = b.elementwise_chain(x, forward_filler);
    saved.push_back(s);
  }
  const int32_t head = b.get_tuple_element(weights, {model, vocab}, type);
  const int32_t final_norm = normalize(b, x, true);
  int32_t logits = b.convert(b.dot(final_norm, head, {batch, seq, vocab}), element_type::kF32);
  const int32_t probabilities = softmax_last(b, logits);
  outputs->push_back(b.reduce(b.elementwise(opcode::kLog, probabilities), {0, 1, 2}));
  int32_t g =
      b.convert(b.elementwise(opcode::kSubtract, probabilities, b.splat_like(probabilities)), type);
  outputs->push_back(sgd_update(b, head, b.dot(final_norm, g, {model, vocab})));
  g = b.dot(g, head, act);
  for (int64_t l = plan.layers - 1; l >= 0; --l) {
    const Saved& s = saved[l];
    g = b.elementwise_chain(g, backward_filler);
    // Feed-forward block.
    int32_t up_grad = b.dot(g, s.w2, {batch, seq, hidden});
    up_grad = b.elementwise(opcode::kMultiply, up_grad, b.elementwise(opcode::kTanh, s.up));
    outputs->push_back(sgd_update(b, s.w2, b.dot(s.up, g, {hidden, model})));
    outputs->push_back(sgd_update(b, s.w1, b.dot(s.ln2, up_grad, {model, hidden})));
    g = b.elementwise(opcode::kAdd, g, b.dot(up_grad, s.w1, act));
    // Attention block.
    outputs->push_back(sgd_update(b, s.wo, b.dot(s.ctx, g, {model, model})));
    const int32_t ctx_grad = split_heads(b, b.dot(g, s.wo, act), heads);
    int32_t p_grad = b.dot(ctx_grad, s.v, {batch, heads, seq, seq});
    p_grad = b.elementwise(opcode::kMultiply, s.p,
                           b.elementwise(opcode::kSubtract, p_grad, b.splat_like(p_grad)));
    const Dims head_dims = b.at(s.q).dims;
    const int32_t q_grad = merge_heads(b, b.dot(p_grad, s.k, head_dims));
    const int32_t k_grad = merge_heads(b, b.dot(p_grad, s.q, head_dims));
    const int32_t v_grad = merge_heads(b, b.dot(s.p, ctx_grad, head_dims));
    outputs->push_back(sgd_update(b, s.wq, b.dot(s.ln1, q_grad, {model, model})));
    outputs->push_back(sgd_update(b, s.wk, b.dot(s.ln1, k_grad, {model, model})));
    outputs->push_back(sgd_update(b, s.wv, b.dot(s.ln1, v_grad, {model, model})));
    int32_t input_grad =
        b.elementwise(opcode::kAdd, b.dot(q_grad, s.wq, act), b.dot(k_grad, s.wk, act));
    input_grad = b.elementwise(opcode::kAdd, input_grad, b.dot(v_grad, s.wv, act));
    g = b.elementwise(opcode::kAdd, g, input_grad);
  }
  outputs->push_back(sgd_update(b, embedding, b.fusion({tokens, g}, b.at(embedding).dims, type)));
}

// Builds the whole program for a plan; the root tuple is added by the caller after padding.
void build_body(ProgramBuilder& b, Random& r, ProgramFamily family, const BodyPlan& plan,
                std::vector<int32_t>* outputs) {
  if (family == ProgramFamily::Convolutional) {
    build_convolutional(b, r, plan, outputs);
  } else {
    build_transformer(b, r, plan, outputs);
  }
}

int64_t body_size(uint64_t seed, ProgramFamily family, const BodyPlan& plan) {
  Random r(seed);
  ProgramBuilder b(r);
  std::vector<int32_t> outputs;
  build_body(b, r, family, plan, &outputs);
  return b.size();
}

int64_t count_configurable_candidates(const std::vector<Instruction>& nodes) {
  int64_t count = 0;
  for (const Instruction& inst : nodes) {
    count += inst.opcode == opcode::kConvolution || inst.opcode == opcode::kDot ||
             inst.opcode == opcode::kReshape || inst.opcode == opcode::kTranspose;
  }
  return count;
}

}  // namespace

LayoutProgram build_layout_program(uint64_t seed, ProgramFamily family, int64_t nodes,
                                   double configurable_fraction) {
  check_data(nodes >= kMinLayoutProgramNodes, "synth", "nodes",
             "a layout program needs at least " + std::to_string(kMinLayoutProgramNodes) +
                 " nodes, got " + std::to_string(nodes));
  check_data(configurable_fraction > 0 && configurable_fraction <= 1, "synth",
             "configurable_fraction",
             "must be in (0, 1], got " + std::to_string(configurable_fraction));
  const uint64_t body_seed = derive_seed(seed, 1);
  // Measure the per-layer size without filler, then add filler elementwise work so that
  // configurable nodes make up about the requested share.
  const int64_t base0 = body_size(body_seed, family, {0, 0});
  const int64_t base1 = body_size(body_seed, family, {1, 0});
  const int64_t per_layer = std::max<int64_t>(1, base1 - base0);
  const double configurable_per_layer = family == ProgramFamily::Convolutional ? 3.0 : 12.0;
  BodyPlan plan;
  plan.filler = std::max<int64_t>(
      0, static_cast<int64_t>(configurable_per_layer / configurable_fraction) - per_layer);
  const int64_t with_filler = body_size(body_seed, family, {1, plan.filler}) - base0;
  plan.layers = std::max<int64_t>(1, (nodes - 1 - base0) / std::max<int64_t>(1, with_filler));
  // Shapes drawn per layer change sizes a little: shrink until the body fits.
  while (plan.layers > 0 && body_size(body_seed, family, plan) > nodes - 1) --plan.layers;
  check_data(
      body_size(body_seed, family, plan) <= nodes - 1, "synth", "nodes",
      "too few nodes for one " +
          std::string(family == ProgramFamily::Convolutional ? "convolutional" : "transformer") +
          " program: " + std::to_string(nodes));
  Random r(body_seed);
  ProgramBuilder b(r);
  std::vector<int32_t> outputs;
  build_body(b, r, family, plan, &outputs);
  // Pad with elementwise work on the outputs until the root tuple makes exactly `nodes`.
  Random pad_random(derive_seed(seed, 2));
  while (b.size() < nodes - 1) {
    int32_t& out = outputs[pad_random.uniform_int(0, static_cast<int64_t>(outputs.size()) - 1)];
    const int64_t missing = nodes - 1 - b.size();
    if (missing >= 5) {
      out = b.elementwise_chain(out, std::min<int64_t>(missing - 4, 8));
    } else {
      out = b.convert(out, b.at(out).type);
    }
  }
  b.set_root(b.tuple(outputs));
  LayoutProgram result;
  result.program = b.finish();
  // Choose the configurable nodes: mostly convolutions and dots, some reshapes and transposes.
  const std::vector<Instruction> flat = result.program.flatten();
  std::vector<int32_t> heavy, shape_ops;
  for (size_t i = 0; i < flat.size(); ++i) {
    const int op = flat[i].opcode;
    if (op == opcode::kConvolution || op == opcode::kDot) heavy.push_back(static_cast<int32_t>(i));
    if (op == opcode::kReshape || op == opcode::kTranspose) {
      shape_ops.push_back(static_cast<int32_t>(i));
    }
  }
  const int64_t candidates = count_configurable_candidates(flat);
  const int64_t wanted = std::clamp<int64_t>(std::llround(configurable_fraction * nodes), 1,
                                             std::max<int64_t>(1, candidates));
  Random pick_random(derive_seed(seed, 3));
  pick_random.shuffle(heavy);
  pick_random.shuffle(shape_ops);
  const int64_t from_shape =
      std::min<int64_t>(static_cast<int64_t>(shape_ops.size()),
                        std::max<int64_t>(wanted - static_cast<int64_t>(heavy.size()),
                                          static_cast<int64_t>(0.15 * wanted)));
  const int64_t from_heavy =
      std::min<int64_t>(static_cast<int64_t>(heavy.size()), wanted - from_shape);
  result.configurable.assign(heavy.begin(), heavy.begin() + from_heavy);
  result.configurable.insert(result.configurable.end(), shape_ops.begin(),
                             shape_ops.begin() + from_shape);
  std::sort(result.configurable.begin(), result.configurable.end());
  return result;
}

}  // namespace graphcost::synth
