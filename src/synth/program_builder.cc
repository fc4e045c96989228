#include "synth/program_builder.h"

#include <cassert>
#include <utility>

namespace graphcost::synth {

int32_t ProgramBuilder::add(Instruction inst) {
  for (int32_t operand : inst.operands) {
    assert(operand >= 0 && operand < static_cast<int32_t>(entry_.size()));
    (void)operand;
  }
  entry_.push_back(std::move(inst));
  return static_cast<int32_t>(entry_.size() - 1);
}

int64_t ProgramBuilder::size() const {
  int64_t n = static_cast<int64_t>(entry_.size());
  for (const auto& c : callees_) n += static_cast<int64_t>(c.size());
  return n;
}

int32_t ProgramBuilder::parameter(std::vector<int64_t> dims, int type) {
  Instruction inst;
  inst.opcode = opcode::kParameter;
  inst.type = type;
  inst.dims = std::move(dims);
  inst.parameter_number = next_parameter_++;
  return add(std::move(inst));
}

int32_t ProgramBuilder::tuple_parameter(int64_t elements) {
  Instruction inst;
  inst.opcode = opcode::kParameter;
  inst.type = element_type::kTuple;
  inst.tuple_size = elements;
  inst.parameter_number = next_parameter_++;
  return add(std::move(inst));
}

int32_t ProgramBuilder::constant(std::vector<int64_t> dims, int type) {
  Instruction inst;
  inst.opcode = opcode::kConstant;
  inst.type = type;
  inst.dims = std::move(dims);
  return add(std::move(inst));
}

int32_t ProgramBuilder::get_tuple_element(int32_t tuple, std::vector<int64_t> dims, int type) {
  Instruction inst;
  inst.opcode = opcode::kGetTupleElement;
  inst.type = type;
  inst.dims = std::move(dims);
  inst.operands = {tuple};
  return add(std::move(inst));
}

int32_t ProgramBuilder::elementwise(int op, int32_t a, int32_t b) {
  Instruction inst;
  inst.opcode = op;
  inst.type = op == opcode::kCompare ? element_type::kPred : entry_[a].type;
  inst.dims = entry_[a].dims;
  inst.operands = {a};
  if (b >= 0) inst.operands.push_back(b);
  return add(std::move(inst));
}

int32_t ProgramBuilder::select(int32_t predicate, int32_t on_true, int32_t on_false) {
  Instruction inst;
  inst.opcode = opcode::kSelect;
  inst.type = entry_[on_true].type;
  inst.dims = entry_[on_true].dims;
  inst.operands = {predicate, on_true, on_false};
  return add(std::move(inst));
}

int32_t ProgramBuilder::convert(int32_t x, int type) {
  Instruction inst;
  inst.opcode = opcode::kConvert;
  inst.type = type;
  inst.dims = entry_[x].dims;
  inst.operands = {x};
  return add(std::move(inst));
}

int32_t ProgramBuilder::broadcast(int32_t x, std::vector<int64_t> dims,
                                  std::vector<int64_t> mapping) {
  Instruction inst;
  inst.opcode = opcode::kBroadcast;
  inst.type = entry_[x].type;
  inst.dims = std::move(dims);
  inst.dimensions = std::move(mapping);
  inst.operands = {x};
  return add(std::move(inst));
}

int32_t ProgramBuilder::splat_like(int32_t x) {
  const int type = entry_[x].type == element_type::kPred ? element_type::kF32 : entry_[x].type;
  // Common-subexpression elimination leaves one broadcast per shape to be reused.
  auto cached = splats_.find({type, entry_[x].dims});
  if (cached != splats_.end() && random_.bernoulli(0.6)) return cached->second;
  // Programs reuse a few scalars (learning rate, epsilon, zero) many times: high fan-out nodes.
  std::vector<int32_t>& pool = scalars_[type];
  int32_t scalar;
  if (pool.size() < 4 || random_.bernoulli(0.15)) {
    scalar = constant({}, type);
    pool.push_back(scalar);
  } else {
    scalar = random_.pick(pool);
  }
  const int32_t splat = broadcast(scalar, entry_[x].dims, {});
  splats_[{type, entry_[x].dims}] = splat;
  return splat;
}

int32_t ProgramBuilder::reshape(int32_t x, std::vector<int64_t> dims) {
  Instruction inst;
  inst.opcode = opcode::kReshape;
  inst.type = entry_[x].type;
  inst.dims = std::move(dims);
  inst.operands = {x};
  return add(std::move(inst));
}

int32_t ProgramBuilder::transpose(int32_t x, std::vector<int64_t> permutation) {
  Instruction inst;
  inst.opcode = opcode::kTranspose;
  inst.type = entry_[x].type;
  for (int64_t p : permutation) inst.dims.push_back(entry_[x].dims[p]);
  inst.dimensions = std::move(permutation);
  inst.operands = {x};
  return add(std::move(inst));
}

int ProgramBuilder::reducer(int reducer_opcode) {
  int& index = reducer_opcode == opcode::kMaximum ? reducer_max_ : reducer_add_;
  if (index >= 0) return index;
  // A scalar reducer computation: two parameters and the combining op as root.
  std::vector<Instruction> body(3);
  for (int i = 0; i < 2; ++i) {
    body[i].opcode = opcode::kParameter;
    body[i].parameter_number = i;
  }
  body[2].opcode = reducer_opcode;
  body[2].operands = {0, 1};
  body[2].is_root = true;
  callees_.push_back(std::move(body));
  index = static_cast<int>(callees_.size() - 1);
  return index;
}

int32_t ProgramBuilder::reduce(int32_t x, std::vector<int64_t> reduced, int reducer_opcode) {
  const int callee = reducer(reducer_opcode);
  int32_t init = constant({}, entry_[x].type);
  Instruction inst;
  inst.opcode = opcode::kReduce;
  inst.type = entry_[x].type;
  const std::vector<int64_t>& in = entry_[x].dims;
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    bool is_reduced = false;
    for (int64_t r : reduced) is_reduced = is_reduced || r == d;
    if (!is_reduced) inst.dims.push_back(in[d]);
  }
  inst.dimensions = std::move(reduced);
  inst.operands = {x, init};
  inst.called_computation = callee;
  return add(std::move(inst));
}

int32_t ProgramBuilder::reduce_window(int32_t x, int64_t size, int64_t stride) {
  const int callee = reducer(opcode::kMaximum);
  int32_t init = constant({}, entry_[x].type);
  Instruction inst;
  inst.opcode = opcode::kReduceWindow;
  inst.type = entry_[x].type;
  inst.dims = entry_[x].dims;
  for (size_t d = 0; d < inst.dims.size(); ++d) {
    WindowDim w;
    if (d == 1 || d == 2) {
      w.size = size;
      w.stride = stride;
      inst.dims[d] = (inst.dims[d] + stride - 1) / stride;
    }
    inst.window.push_back(w);
  }
  inst.operands = {x, init};
  inst.called_computation = callee;
  return add(std::move(inst));
}

int32_t ProgramBuilder::convolution(int32_t input, int32_t kernel, int64_t stride) {
  const auto& in = entry_[input].dims;
  const auto& k = entry_[kernel].dims;
  std::vector<int64_t> dims = {in[0], (in[1] + stride - 1) / stride, (in[2] + stride - 1) / stride,
                               k[3]};
  int32_t id = convolution_to(input, kernel, dims, k[0]);
  for (WindowDim& w : entry_[id].window) w.stride = stride;
  return id;
}

int32_t ProgramBuilder::convolution_to(int32_t input, int32_t kernel, std::vector<int64_t> dims,
                                       int64_t window) {
  Instruction inst;
  inst.opcode = opcode::kConvolution;
  inst.type = entry_[input].type;
  inst.dims = std::move(dims);
  inst.operands = {input, kernel};
  for (int i = 0; i < 2; ++i) {
    WindowDim w;
    w.size = window;
    w.pad_low = (window - 1) / 2;
    w.pad_high = window / 2;
    inst.window.push_back(w);
  }
  // NHWC input, HWIO kernel, NHWC output: batch, feature, spatial x4; kernel in, out,
  // spatial x4; output batch, feature.
  inst.conv_dims = {0, 3, 1, 2, 0, 0, 2, 3, 0, 1, 0, 0, 0, 3};
  inst.feature_group_count = 1;
  inst.batch_group_count = 1;
  return add(std::move(inst));
}

int32_t ProgramBuilder::dot(int32_t a, int32_t b, std::vector<int64_t> dims) {
  Instruction inst;
  inst.opcode = opcode::kDot;
  inst.type = entry_[a].type;
  inst.dims = std::move(dims);
  inst.operands = {a, b};
  return add(std::move(inst));
}

int32_t ProgramBuilder::fusion(std::vector<int32_t> operands, std::vector<int64_t> dims, int type) {
  // The fused body: one parameter per operand, a short elementwise chain, a root.
  std::vector<Instruction> body;
  for (size_t i = 0; i < operands.size(); ++i) {
    Instruction p;
    p.opcode = opcode::kParameter;
    p.type = type;
    p.dims = dims;
    p.parameter_number = static_cast<int64_t>(i);
    body.push_back(p);
  }
  static const std::vector<int> kOps = {opcode::kMultiply, opcode::kAdd, opcode::kSubtract,
                                        opcode::kMaximum, opcode::kExponential};
  const int64_t length = random_.uniform_int(1, 4);
  int32_t last = 0;
  for (int64_t i = 0; i < length; ++i) {
    Instruction op;
    op.opcode = random_.pick(kOps);
    op.type = type;
    op.dims = dims;
    op.operands = {last};
    if (op.opcode != opcode::kExponential) {
      op.operands.push_back(static_cast<int32_t>(random_.uniform_int(0, operands.size() - 1)));
    }
    body.push_back(op);
    last = static_cast<int32_t>(body.size() - 1);
  }
  body.back().is_root = true;
  callees_.push_back(std::move(body));
  Instruction inst;
  inst.opcode = opcode::kFusion;
  inst.type = type;
  inst.dims = std::move(dims);
  inst.operands = std::move(operands);
  inst.called_computation = static_cast<int>(callees_.size() - 1);
  return add(std::move(inst));
}

int32_t ProgramBuilder::tuple(std::vector<int32_t> elements) {
  Instruction inst;
  inst.opcode = opcode::kTuple;
  inst.type = element_type::kTuple;
  inst.tuple_size = static_cast<int64_t>(elements.size());
  inst.operands = std::move(elements);
  return add(std::move(inst));
}

int32_t ProgramBuilder::elementwise_chain(int32_t x, int64_t length) {
  static const std::vector<int> kBinary = {opcode::kMultiply, opcode::kAdd,    opcode::kMultiply,
                                           opcode::kSubtract, opcode::kDivide, opcode::kMaximum};
  static const std::vector<int> kUnary = {opcode::kConvert, opcode::kExponential, opcode::kTanh,
                                          opcode::kRsqrt,   opcode::kNegate,      opcode::kLog};
  for (int64_t i = 0; i < length; ++i) {
    const double u = random_.uniform();
    if (u < 0.55) {
      x = elementwise(random_.pick(kBinary), x, splat_like(x));
      i += 2;  // the constant and its broadcast count towards the chain's length
    } else if (u < 0.7) {
      int32_t zero = splat_like(x);
      int32_t predicate = elementwise(opcode::kCompare, x, zero);
      x = select(predicate, x, zero);
      i += 3;
    } else {
      const int op = random_.pick(kUnary);
      x = op == opcode::kConvert ? convert(x, entry_[x].type) : elementwise(op, x);
    }
  }
  return x;
}

Program ProgramBuilder::finish() {
  Program program;
  program.computations = callees_;
  std::vector<Instruction> entry = entry_;
  const int32_t root = root_ >= 0 ? root_ : static_cast<int32_t>(entry.size() - 1);
  entry[root].is_root = true;
  program.computations.push_back(std::move(entry));
  return program;
}

}  // namespace graphcost::synth
