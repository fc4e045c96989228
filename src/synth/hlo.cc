#include "synth/hlo.h"

#include <algorithm>
#include <cassert>

namespace graphcost::synth {

int element_bytes(int type) {
  switch (type) {
    case element_type::kPred:
      return 1;
    case element_type::kBf16:
      return 2;
    case element_type::kTuple:
      return 0;
    default:
      return 4;
  }
}

int64_t Instruction::elements() const {
  if (type == element_type::kTuple) return 0;
  int64_t product = 1;
  for (int64_t d : dims) product *= d;
  return product;
}

std::vector<int> default_layout(int64_t rank) {
  std::vector<int> layout(rank);
  for (int64_t i = 0; i < rank; ++i) layout[i] = static_cast<int>(rank - 1 - i);
  return layout;
}

namespace {

// The featurizer's fixed-length sequence: `lead` values (zero padded), then sum and product;
// the product of an empty sequence is 1 (node features).
int write_sequence(float* out, const std::vector<int64_t>& values, int lead) {
  int64_t sum = 0;
  double product = 1;
  for (int i = 0; i < lead; ++i) out[i] = i < static_cast<int>(values.size()) ? values[i] : 0.0f;
  for (int64_t v : values) {
    sum += v;
    product *= static_cast<double>(v);
  }
  out[lead] = static_cast<float>(sum);
  out[lead + 1] = static_cast<float>(product);
  return lead + 2;
}

template <typename Field>
std::vector<int64_t> window_field(const std::vector<WindowDim>& window, Field field) {
  std::vector<int64_t> values;
  for (const WindowDim& w : window) values.push_back(w.*field);
  return values;
}

}  // namespace

void write_node_features(const Instruction& inst, float* row) {
  std::fill(row, row + kNodeFeatureWidth, 0.0f);
  row[0] = inst.is_root ? 1.0f : 0.0f;
  row[1] = 0.0f;  // the public featurizer always writes 0 for element_size_in_bits
  row[2 + inst.type] = 1.0f;
  write_sequence(row + 21, inst.dims, 6);
  row[29] = static_cast<float>(inst.tuple_size);
  row[30] = static_cast<float>(inst.parameter_number);
  for (size_t i = 0; i < inst.dimensions.size() && i < 6; ++i) {
    row[31 + i] = static_cast<float>(inst.dimensions[i]);
  }
  float* w = row + 37;
  w += write_sequence(w, window_field(inst.window, &WindowDim::size), 6);
  w += write_sequence(w, window_field(inst.window, &WindowDim::stride), 6);
  w += write_sequence(w, window_field(inst.window, &WindowDim::pad_low), 6);
  w += write_sequence(w, window_field(inst.window, &WindowDim::pad_high), 6);
  w += write_sequence(w, window_field(inst.window, &WindowDim::window_dilation), 6);
  w += write_sequence(w, window_field(inst.window, &WindowDim::base_dilation), 6);
  // Reversal: 6 flags (never reversed here), then true count and false count.
  w[6] = 0.0f;
  w[7] = static_cast<float>(inst.window.size());
  for (size_t i = 0; i < inst.conv_dims.size() && i < 14; ++i) {
    row[93 + i] = static_cast<float>(inst.conv_dims[i]);
  }
  row[107] = static_cast<float>(inst.feature_group_count);
  row[108] = static_cast<float>(inst.batch_group_count);
  write_sequence(row + 109, inst.slice_start, 2);
  write_sequence(row + 113, inst.slice_stride, 2);
  write_sequence(row + 117, inst.slice_limit, 2);
  write_sequence(row + 121, {}, 2);
  write_sequence(row + 125, inst.pad_low, 2);
  write_sequence(row + 129, inst.pad_high, 2);
  row[133] = 0.0f;
  if (inst.type != element_type::kTuple) {
    const std::vector<int> layout = default_layout(inst.rank());
    for (size_t i = 0; i < layout.size() && i < 6; ++i)
      row[134 + i] = static_cast<float>(layout[i]);
  }
}

int64_t Program::num_nodes() const {
  int64_t n = 0;
  for (const auto& c : computations) n += static_cast<int64_t>(c.size());
  return n;
}

std::vector<Instruction> Program::flatten() const {
  std::vector<Instruction> out;
  out.reserve(num_nodes());
  int32_t offset = 0;
  for (const auto& computation : computations) {
    for (const Instruction& inst : computation) {
      Instruction global = inst;
      for (int32_t& operand : global.operands) operand += offset;
      out.push_back(std::move(global));
    }
    offset += static_cast<int32_t>(computation.size());
  }
  return out;
}

data::Graph Program::to_graph(const std::string& name) const {
  data::Graph graph;
  graph.name = name;
  graph.num_nodes = num_nodes();
  graph.feature_width = kNodeFeatureWidth;
  graph.opcodes.reserve(graph.num_nodes);
  graph.node_features.resize(graph.num_nodes * kNodeFeatureWidth);
  std::vector<int64_t> starts;
  std::vector<int32_t> roots;
  int64_t offset = 0;
  for (const auto& computation : computations) {
    starts.push_back(offset);
    int32_t root = static_cast<int32_t>(offset + computation.size() - 1);
    for (size_t i = 0; i < computation.size(); ++i) {
      if (computation[i].is_root) root = static_cast<int32_t>(offset + i);
    }
    roots.push_back(root);
    offset += static_cast<int64_t>(computation.size());
  }
  graph.node_splits = starts;
  graph.node_splits.push_back(offset);
  int64_t node = 0;
  for (size_t c = 0; c < computations.size(); ++c) {
    for (const Instruction& inst : computations[c]) {
      graph.opcodes.push_back(inst.opcode);
      write_node_features(inst, graph.node_features.data() + node * kNodeFeatureWidth);
      std::vector<int32_t> operands;
      for (int32_t local : inst.operands)
        operands.push_back(static_cast<int32_t>(starts[c] + local));
      std::sort(operands.begin(), operands.end());
      operands.erase(std::unique(operands.begin(), operands.end()), operands.end());
      for (int32_t operand : operands) {
        assert(operand < node);
        graph.edges.push_back(static_cast<int32_t>(node));
        graph.edges.push_back(operand);
      }
      if (inst.called_computation >= 0) {
        assert(inst.called_computation < static_cast<int>(c));
        graph.edges.push_back(static_cast<int32_t>(node));
        graph.edges.push_back(roots[inst.called_computation]);
      }
      ++node;
    }
  }
  graph.build_adjacency();
  return graph;
}

}  // namespace graphcost::synth
