// Builds HLO-like programs one instruction at a time, inferring result shapes, so that the
// model-like block generators read like the XLA programs they imitate.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "synth/hlo.h"
#include "synth/random.h"

namespace graphcost::synth {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(Random& random) : random_(random) {}

  // Entry-computation instructions; each returns the new instruction's id.
  int32_t add(Instruction inst);
  const Instruction& at(int32_t id) const { return entry_[id]; }
  int64_t size() const;  // all instructions so far, callees included
  int64_t entry_size() const { return static_cast<int64_t>(entry_.size()); }

  int32_t parameter(std::vector<int64_t> dims, int type);
  int32_t tuple_parameter(int64_t elements);
  int32_t constant(std::vector<int64_t> dims, int type);
  int32_t get_tuple_element(int32_t tuple, std::vector<int64_t> dims, int type);
  // Same-shape elementwise op (compare gives pred); b = -1 for a unary op.
  int32_t elementwise(int op, int32_t a, int32_t b = -1);
  int32_t select(int32_t predicate, int32_t on_true, int32_t on_false);
  int32_t convert(int32_t x, int type);
  // Broadcasts x into dims; mapping[i] is the result dim of x's dim i.
  int32_t broadcast(int32_t x, std::vector<int64_t> dims, std::vector<int64_t> mapping);
  // A scalar constant broadcast to x's shape (the usual second operand of elementwise ops).
  int32_t splat_like(int32_t x);
  int32_t reshape(int32_t x, std::vector<int64_t> dims);
  int32_t transpose(int32_t x, std::vector<int64_t> permutation);
  // Reduces the listed dims with an add (or max) reducer computation.
  int32_t reduce(int32_t x, std::vector<int64_t> reduced, int reducer_opcode = opcode::kAdd);
  // 2-D window over dims 1 and 2 of an NHWC tensor (max pooling).
  int32_t reduce_window(int32_t x, int64_t size, int64_t stride);
  // NHWC convolution with an HWIO kernel: out = [n, ceil(h/stride), ceil(w/stride), o].
  int32_t convolution(int32_t input, int32_t kernel, int64_t stride);
  // Generic convolution with a given result shape (backward passes reuse the opcode).
  int32_t convolution_to(int32_t input, int32_t kernel, std::vector<int64_t> dims, int64_t window);
  // A dot (matrix product) with the given result shape.
  int32_t dot(int32_t a, int32_t b, std::vector<int64_t> dims);
  // A fusion of the operands into result dims, with a small fused body computation.
  int32_t fusion(std::vector<int32_t> operands, std::vector<int64_t> dims, int type);
  int32_t tuple(std::vector<int32_t> elements);
  void set_root(int32_t id) { root_ = id; }
  // A chain of `length` elementwise ops starting at x; returns its end.
  int32_t elementwise_chain(int32_t x, int64_t length);

  Program finish();

 private:
  int reducer(int reducer_opcode);

  Random& random_;
  std::vector<std::vector<Instruction>> callees_;
  std::vector<Instruction> entry_;
  int reducer_add_ = -1;
  int reducer_max_ = -1;
  int64_t next_parameter_ = 0;
  int32_t root_ = -1;
  std::map<int, std::vector<int32_t>> scalars_;  // reusable scalar constants per type
  std::map<std::pair<int, std::vector<int64_t>>, int32_t> splats_;  // last splat per shape
};

}  // namespace graphcost::synth
