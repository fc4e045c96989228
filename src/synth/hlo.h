// A minimal HLO-like program model for the synthetic generator: instructions with shapes,
// attributes and operands, grouped in computations, and their featurisation into the 140
// TpuGraphs node-feature columns (shared/docs/formats.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/graph.h"

namespace graphcost::synth {

// TpuGraphs opcode ids (the numbering of the public featurizer's hlo_opcode.h).
namespace opcode {
constexpr int kAdd = 2, kBitcast = 11, kBroadcast = 13, kCompare = 20, kConcatenate = 22,
              kConstant = 24, kConvert = 25, kConvolution = 26, kCopy = 27, kDivide = 32, kDot = 34,
              kExponential = 37, kFusion = 41, kGetTupleElement = 45, kLog = 50, kMaximum = 57,
              kMultiply = 59, kNegate = 60, kPad = 62, kParameter = 63, kReduce = 70,
              kReduceWindow = 72, kReshape = 75, kRsqrt = 81, kSelect = 83, kSlice = 92,
              kSubtract = 95, kTanh = 96, kTranspose = 98, kTuple = 100;
}  // namespace opcode

// Index of an element type in the one-hot columns 2-20 (the featurizer's type order).
namespace element_type {
constexpr int kPred = 1, kS32 = 4, kF32 = 11, kBf16 = 13, kTuple = 16;
}  // namespace element_type

constexpr int kNodeFeatureWidth = 140;
constexpr int kMaxRank = 6;

// Bytes per element of an element type (0 for tuples).
int element_bytes(int type);

struct WindowDim {
  int64_t size = 1, stride = 1, pad_low = 0, pad_high = 0, window_dilation = 1, base_dilation = 1;
};

struct Instruction {
  int opcode = opcode::kAdd;
  int type = element_type::kF32;
  std::vector<int64_t> dims;      // array shape (empty for scalars and tuples)
  std::vector<int32_t> operands;  // ids within the same computation, all smaller than this id
  int64_t tuple_size = 0;
  int64_t parameter_number = 0;
  std::vector<int64_t> dimensions;  // broadcast / reduce / transpose dimensions
  std::vector<WindowDim> window;    // convolution, reduce-window
  std::vector<int64_t> conv_dims;   // 14 convolution dimension numbers, or empty
  int64_t feature_group_count = 0, batch_group_count = 0;
  std::vector<int64_t> slice_start, slice_stride, slice_limit;
  std::vector<int64_t> pad_low, pad_high;
  int called_computation = -1;  // reduce, fusion, reduce-window: index of the callee
  bool is_root = false;

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t elements() const;  // product of dims (1 for a scalar, 0 for a tuple)
  int64_t bytes() const { return elements() * element_bytes(type); }
};

// A program: computations in order (callees before callers, the entry computation last).
struct Program {
  std::vector<std::vector<Instruction>> computations;

  // Instructions over all computations.
  int64_t num_nodes() const;
  // Flattens into a Graph: nodes in computation order, edges [consumer, operand] with duplicate
  // operands merged, plus an edge from each caller to the root of its callee, node_splits the
  // cumulative computation boundaries [0, ..., num_nodes] as the public encoder writes them.
  data::Graph to_graph(const std::string& name) const;
  // Flattened instructions with operands renumbered to global ids (called roots not included).
  std::vector<Instruction> flatten() const;
};

// Writes the 140 feature columns of one instruction.
void write_node_features(const Instruction& inst, float* row);

// The compiler's default layout of a rank-r array: minor_to_major = {r-1, ..., 0}.
std::vector<int> default_layout(int64_t rank);

}  // namespace graphcost::synth
