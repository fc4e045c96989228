#include "synth/layout_cost.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

namespace graphcost::synth {

namespace {

const int8_t kDefaultLayouts[7][6] = {
    {0}, {0}, {1, 0}, {2, 1, 0}, {3, 2, 1, 0}, {4, 3, 2, 1, 0}, {5, 4, 3, 2, 1, 0}};

bool is_elementwise(int op) {
  switch (op) {
    case opcode::kAdd:
    case opcode::kSubtract:
    case opcode::kMultiply:
    case opcode::kDivide:
    case opcode::kMaximum:
    case opcode::kSelect:
    case opcode::kCompare:
    case opcode::kConvert:
    case opcode::kExponential:
    case opcode::kTanh:
    case opcode::kRsqrt:
    case opcode::kNegate:
    case opcode::kLog:
    case opcode::kCopy:
      return true;
    default:
      return false;
  }
}

// Parameters, constants and tuple plumbing cost nothing at run time.
bool is_free(int op) {
  return op == opcode::kParameter || op == opcode::kConstant || op == opcode::kGetTupleElement ||
         op == opcode::kTuple || op == opcode::kBitcast;
}

// A layout is used only if it is a full permutation of the rank's dims; anything else (all -1,
// a partial order) means the compiler's default.
const int8_t* resolve(const int8_t* values, int rank) {
  if (rank <= 0) return kDefaultLayouts[0];
  bool seen[6] = {false, false, false, false, false, false};
  for (int i = 0; i < rank; ++i) {
    const int v = values[i];
    if (v < 0 || v >= rank || seen[v]) return kDefaultLayouts[rank];
    seen[v] = true;
  }
  return values;
}

double contraction_size(const Instruction& node, const Instruction& input,
                        const Instruction& kernel) {
  // Geometric estimate of the contracted extent: sqrt(|input| * |kernel| / |output|), exact for
  // a plain matrix product and its two gradients.
  const double ratio = static_cast<double>(input.elements()) *
                       static_cast<double>(kernel.elements()) /
                       std::max<double>(1.0, static_cast<double>(node.elements()));
  return std::max(1.0, std::sqrt(ratio));
}

// padded_elements on an inline shape.
double padded_shape(const int64_t* dims, int rank, const int8_t* minor_to_major) {
  if (rank == 0) return 1.0;
  const int minor = minor_to_major[0];
  const int64_t lanes = (dims[minor] + 127) / 128 * 128;
  if (rank == 1) return static_cast<double>(lanes);
  const int second = minor_to_major[1];
  double result = static_cast<double>(lanes * ((dims[second] + 7) / 8 * 8));
  for (int d = 0; d < rank; ++d) {
    if (d != minor && d != second) result *= static_cast<double>(dims[d]);
  }
  return result;
}

}  // namespace

double padded_elements(const std::vector<int64_t>& dims, const int8_t* minor_to_major) {
  return padded_shape(dims.data(), static_cast<int>(dims.size()), minor_to_major);
}

double configurable_node_cost_ns(const Instruction& node, const Instruction* input,
                                 const Instruction* kernel, const int8_t* output_layout,
                                 const int8_t* input_layout, const int8_t* kernel_layout,
                                 const LayoutCostParams& params) {
  const double out_padded = padded_elements(node.dims, output_layout);
  double bytes = out_padded * element_bytes(node.type);
  if (input != nullptr)
    bytes += padded_elements(input->dims, input_layout) * element_bytes(input->type);
  if (kernel != nullptr) {
    bytes += padded_elements(kernel->dims, kernel_layout) * element_bytes(kernel->type);
  }
  double compute_ns = 0;
  if ((node.opcode == opcode::kConvolution || node.opcode == opcode::kDot) && input != nullptr &&
      kernel != nullptr) {
    // The matrix unit works on whole output tiles: padding wastes its flops too.
    compute_ns = 2.0 * contraction_size(node, *input, *kernel) * out_padded / params.flops_per_ns;
  }
  return params.node_overhead_ns + compute_ns + bytes / params.bandwidth_bytes_per_ns;
}

LayoutCostModel::Shape LayoutCostModel::shape_of(const Instruction& inst) {
  Shape shape;
  shape.rank = static_cast<int>(std::min<int64_t>(inst.rank(), kMaxRank));
  for (int d = 0; d < shape.rank; ++d) shape.dims[d] = inst.dims[d];
  return shape;
}

LayoutCostModel::LayoutCostModel(const std::vector<Instruction>& nodes,
                                 const std::vector<int32_t>& configurable, LayoutCostParams params)
    : params_(params) {
  const int64_t n = static_cast<int64_t>(nodes.size());
  const int64_t nc = static_cast<int64_t>(configurable.size());
  std::unordered_map<int32_t, int32_t> config_index;
  for (int64_t k = 0; k < nc; ++k) config_index[configurable[k]] = static_cast<int32_t>(k);
  auto is_array = [&](int32_t v) {
    return nodes[v].type != element_type::kTuple && !nodes[v].dims.empty();
  };
  tensor_ranks_.assign(3 * nc, 0);
  configurable_operands_.resize(2 * nc);
  for (int64_t k = 0; k < nc; ++k) {
    const Instruction& inst = nodes[configurable[k]];
    configurable_nodes_.push_back(inst);
    tensor_ranks_[3 * k] = static_cast<int>(inst.rank());
    for (int t = 0; t < 2 && t < static_cast<int>(inst.operands.size()); ++t) {
      const int32_t operand = inst.operands[t];
      if (!is_array(operand)) continue;
      configurable_operands_[2 * k + t] = nodes[operand];
      tensor_ranks_[3 * k + 1 + t] = static_cast<int>(nodes[operand].rank());
    }
  }
  // Where each node's output layout comes from: its own configuration, a configurable node up
  // an elementwise chain, or the default (-1).
  std::vector<int32_t> out_ref(n, -1);
  std::vector<bool> follower(n, false);
  for (int64_t v = 0; v < n; ++v) {
    const Instruction& inst = nodes[v];
    auto it = config_index.find(static_cast<int32_t>(v));
    if (it != config_index.end()) {
      out_ref[v] = 3 * it->second;
    } else if (is_elementwise(inst.opcode) && inst.rank() > 0) {
      follower[v] = true;
      for (int32_t operand : inst.operands) {
        if (nodes[operand].dims == inst.dims && is_array(operand)) {
          out_ref[v] = out_ref[operand];
          break;
        }
      }
    }
  }
  auto default_bytes = [&](int32_t v) {
    return padded_elements(nodes[v].dims, kDefaultLayouts[std::min<int64_t>(6, nodes[v].rank())]) *
           element_bytes(nodes[v].type);
  };
  for (int64_t v = 0; v < n; ++v) {
    const Instruction& inst = nodes[v];
    const bool configured = config_index.count(static_cast<int32_t>(v)) > 0;
    if (!configured && !is_free(inst.opcode)) {
      fixed_ns_ += params_.node_overhead_ns;
      if (follower[v] && out_ref[v] >= 0) {
        int array_operands = 0;
        for (int32_t operand : inst.operands) array_operands += nodes[operand].dims == inst.dims;
        followers_.push_back(
            {{out_ref[v]},
             shape_of(inst),
             element_bytes(inst.type) * (1.0 + array_operands) / params_.bandwidth_bytes_per_ns});
      } else if (inst.type != element_type::kTuple) {
        double bytes = default_bytes(static_cast<int32_t>(v));
        for (int32_t operand : inst.operands) {
          if (is_array(operand)) bytes += default_bytes(operand);
        }
        fixed_ns_ += bytes / params_.bandwidth_bytes_per_ns;
        if ((inst.opcode == opcode::kConvolution || inst.opcode == opcode::kDot) &&
            inst.operands.size() >= 2) {
          fixed_ns_ +=
              2.0 * contraction_size(inst, nodes[inst.operands[0]], nodes[inst.operands[1]]) *
              padded_elements(inst.dims, kDefaultLayouts[inst.rank()]) / params_.flops_per_ns;
        }
      }
    }
    // Operands whose layout may differ from what this node expects.
    auto it = config_index.find(static_cast<int32_t>(v));
    for (size_t j = 0; j < inst.operands.size(); ++j) {
      const int32_t operand = inst.operands[j];
      if (!is_array(operand)) continue;
      int32_t expected = -1;
      if (it != config_index.end()) {
        if (j < 2) expected = 3 * it->second + 1 + static_cast<int32_t>(j);
      } else if (follower[v] && nodes[operand].dims == inst.dims) {
        expected = out_ref[v];
      }
      const int32_t produced = out_ref[operand];
      if (produced == expected) continue;  // the same layout by construction
      edges_.push_back({{produced},
                        {expected},
                        shape_of(nodes[operand]),
                        static_cast<double>(element_bytes(nodes[operand].type))});
    }
  }
}

template <class Add>
void LayoutCostModel::for_each_term(const int8_t* config, Add&& add) const {
  const int64_t nc = static_cast<int64_t>(configurable_nodes_.size());
  std::vector<const int8_t*> layouts(3 * nc);
  for (int64_t s = 0; s < 3 * nc; ++s) layouts[s] = resolve(config + 6 * s, tensor_ranks_[s]);
  auto layout_of = [&](LayoutRef ref, size_t rank) {
    return ref.slot < 0 ? kDefaultLayouts[rank] : layouts[ref.slot];
  };
  for (int64_t k = 0; k < nc; ++k) {
    const Instruction* input =
        tensor_ranks_[3 * k + 1] > 0 ? &configurable_operands_[2 * k] : nullptr;
    const Instruction* kernel =
        tensor_ranks_[3 * k + 2] > 0 ? &configurable_operands_[2 * k + 1] : nullptr;
    add(Term::Node, configurable_node_cost_ns(configurable_nodes_[k], input, kernel, layouts[3 * k],
                                              layouts[3 * k + 1], layouts[3 * k + 2], params_));
  }
  for (const FollowerTerm& f : followers_) {
    const Shape& shape = f.shape;
    add(Term::Follower,
        f.bytes_factor * padded_shape(shape.dims, shape.rank, layout_of(f.layout, shape.rank)));
  }
  for (const EdgeTerm& e : edges_) {
    const Shape& shape = e.shape;
    const int8_t* produced = layout_of(e.produced, shape.rank);
    const int8_t* expected = layout_of(e.expected, shape.rank);
    if (std::memcmp(produced, expected, shape.rank) == 0) continue;
    // A copy reads the array in one layout and writes it in the other.
    add(Term::Copy,
        params_.copy_overhead_ns + e.bytes_per_element *
                                       (padded_shape(shape.dims, shape.rank, produced) +
                                        padded_shape(shape.dims, shape.rank, expected)) /
                                       params_.bandwidth_bytes_per_ns);
  }
}

double LayoutCostModel::runtime_ns(const int8_t* config) const {
  double total = fixed_ns_;
  for_each_term(config, [&total](Term, double ns) { total += ns; });
  return total;
}

LayoutCostTerms LayoutCostModel::terms_ns(const int8_t* config) const {
  LayoutCostTerms terms;
  terms.fixed_ns = fixed_ns_;
  for_each_term(config, [&terms](Term term, double ns) {
    (term == Term::Node       ? terms.nodes_ns
     : term == Term::Follower ? terms.followers_ns
                              : terms.copies_ns) += ns;
  });
  return terms;
}

}  // namespace graphcost::synth
