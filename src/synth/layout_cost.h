// The analytical cost model that gives layout configurations their runtimes (docs/synthetic.md).
// Arrays are stored in (8, 128) tiles: the minor-most dim is padded to 128 lanes and the
// second-minor to 8 sublanes, so a layout that puts a small dim minor wastes memory traffic
// and compute. Layouts propagate from a configurable node along elementwise chains; every
// operand whose layout differs from the one its consumer expects pays a copy.
#pragma once

#include <cstdint>
#include <vector>

#include "synth/hlo.h"

namespace graphcost::synth {

struct LayoutCostParams {
  double bandwidth_bytes_per_ns = 1200.0;  // HBM, 1.2 TB/s
  double flops_per_ns = 200000.0;          // matrix unit, 200 TFLOP/s
  double node_overhead_ns = 150.0;         // launch cost of any non-trivial op
  double copy_overhead_ns = 400.0;         // launch cost of an inserted layout copy
};

// Elements of an array of dims stored with minor_to_major layout (rank entries) once padded to
// (8, 128) tiles. A rank-1 array pads its only dim to 128; a scalar is 1 element.
double padded_elements(const std::vector<int64_t>& dims, const int8_t* minor_to_major);

// Cost of one configurable node (convolution, dot, reshape, transpose) given the layouts of its
// output, first operand and second operand (nullptr where the operand is absent):
// overhead + flops / (peak * tile utilisation of the output) + padded bytes / bandwidth.
double configurable_node_cost_ns(const Instruction& node, const Instruction* input,
                                 const Instruction* kernel, const int8_t* output_layout,
                                 const int8_t* input_layout, const int8_t* kernel_layout,
                                 const LayoutCostParams& params);

// A runtime split by the cost model's terms (docs/synthetic.md): what no configuration changes,
// the configurable nodes' own cost, the traffic of the elementwise nodes that follow a configured
// layout, and the inserted layout copies. runtime_ns is their sum.
struct LayoutCostTerms {
  double fixed_ns = 0;
  double nodes_ns = 0;
  double followers_ns = 0;
  double copies_ns = 0;
};

// Per-graph cost model: precomputes the configuration-independent part once, then evaluates a
// configuration in time proportional to the nodes and edges its layouts can affect.
class LayoutCostModel {
 public:
  // nodes: the flattened program; configurable: ascending node ids.
  LayoutCostModel(const std::vector<Instruction>& nodes, const std::vector<int32_t>& configurable,
                  LayoutCostParams params = {});
  // Noiseless runtime in ns of one configuration: configurable.size() * 18 values, each node's
  // output, input and kernel minor_to_major (padded with -1; all -1 = compiler default).
  double runtime_ns(const int8_t* config) const;
  // The same runtime by term (the terms add up to runtime_ns up to rounding).
  LayoutCostTerms terms_ns(const int8_t* config) const;
  // The part of every runtime no configuration changes.
  double fixed_ns() const { return fixed_ns_; }
  // Which of a configurable node's three tensors exist (output always; input and kernel when
  // the node has a first / second array operand); their ranks, 0 where absent.
  const std::vector<int>& tensor_ranks() const { return tensor_ranks_; }

 private:
  // A layout reference: the default layout of a rank, or tensor t of configurable node k.
  struct LayoutRef {
    int32_t slot = -1;  // k * 3 + t, or -1 for the default layout
  };
  struct Shape {  // dims stored inline: evaluation walks millions of these
    int64_t dims[kMaxRank] = {0, 0, 0, 0, 0, 0};
    int rank = 0;
  };
  struct FollowerTerm {  // an elementwise node that inherits a configurable node's layout
    LayoutRef layout;
    Shape shape;
    double bytes_factor;  // element bytes * (1 + array operands) / bandwidth
  };
  struct EdgeTerm {  // an operand whose layout may differ from what its consumer expects
    LayoutRef produced, expected;
    Shape shape;
    double bytes_per_element;
  };

  static Shape shape_of(const Instruction& inst);
  enum class Term { Node, Follower, Copy };
  // Calls add(term, ns) for every configuration-dependent term of config, in one fixed order.
  template <class Add>
  void for_each_term(const int8_t* config, Add&& add) const;

  std::vector<Instruction> configurable_nodes_;     // copies of the configurable nodes
  std::vector<Instruction> configurable_operands_;  // 2 per configurable node (may be empty)
  LayoutCostParams params_;
  double fixed_ns_ = 0;
  std::vector<int> tensor_ranks_;  // 3 per configurable node
  std::vector<FollowerTerm> followers_;
  std::vector<EdgeTerm> edges_;
};

}  // namespace graphcost::synth
