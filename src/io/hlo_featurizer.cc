#include "io/hlo_featurizer.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/hlo_opcodes.h"

namespace graphcost::io {
namespace {

// xla.PrimitiveType values in the order of the one-hot columns 2..20 (the dataset's order,
// not the enum's: BF16 = 16 sits after F64 = 12).
constexpr std::array<int32_t, 19> kElementTypeColumns = {
    0 /*invalid*/, 1 /*pred*/,  2 /*s8*/,     3 /*s16*/,     4 /*s32*/,  5 /*s64*/,  6 /*u8*/,
    7 /*u16*/,     8 /*u32*/,   9 /*u64*/,    10 /*f16*/,    11 /*f32*/, 12 /*f64*/, 16 /*bf16*/,
    15 /*c64*/,    18 /*c128*/, 13 /*tuple*/, 14 /*opaque*/, 17 /*token*/};

template <typename Repeated>
std::vector<int64_t> to_vector(const Repeated& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

template <typename Repeated, typename Field>
std::vector<int64_t> collect(const Repeated& messages, Field field) {
  std::vector<int64_t> values;
  values.reserve(messages.size());
  for (const auto& message : messages) values.push_back(field(message));
  return values;
}

// The first `leading` values, zero padded.
void append_leading(std::vector<float>& out, const std::vector<int64_t>& values, size_t leading) {
  for (size_t i = 0; i < leading; ++i) {
    out.push_back(i < values.size() ? static_cast<float>(values[i]) : 0.0f);
  }
}

// The first `leading` values, then their sum and product. The product wraps like the
// reference's int64 arithmetic; the product of an empty list is 1, or 0 when asked (tile
// configurations).
void append_sequence(std::vector<float>& out, const std::vector<int64_t>& values, size_t leading,
                     bool zero_product_when_empty = false) {
  append_leading(out, values, leading);
  out.push_back(static_cast<float>(wrapping_sum(values)));
  if (values.empty() && zero_product_when_empty) {
    out.push_back(0.0f);
  } else {
    out.push_back(static_cast<float>(wrapping_product(values)));
  }
}

void append_window(std::vector<float>& out, const pb::Window& window) {
  const auto& dims = window.dimensions();
  using Dim = pb::WindowDimension;
  append_sequence(out, collect(dims, [](const Dim& d) { return d.size(); }), 6);
  append_sequence(out, collect(dims, [](const Dim& d) { return d.stride(); }), 6);
  append_sequence(out, collect(dims, [](const Dim& d) { return d.padding_low(); }), 6);
  append_sequence(out, collect(dims, [](const Dim& d) { return d.padding_high(); }), 6);
  append_sequence(out, collect(dims, [](const Dim& d) { return d.window_dilation(); }), 6);
  append_sequence(out, collect(dims, [](const Dim& d) { return d.base_dilation(); }), 6);
  const auto reversal = collect(dims, [](const Dim& d) -> int64_t { return d.window_reversal(); });
  append_leading(out, reversal, 6);
  const auto reversed = std::count(reversal.begin(), reversal.end(), 1);
  out.push_back(static_cast<float>(reversed));
  out.push_back(static_cast<float>(static_cast<int64_t>(reversal.size()) - reversed));
}

void append_convolution_dimensions(std::vector<float>& out,
                                   const pb::ConvolutionDimensionNumbers& numbers) {
  out.push_back(static_cast<float>(numbers.input_batch_dimension()));
  out.push_back(static_cast<float>(numbers.input_feature_dimension()));
  append_leading(out, to_vector(numbers.input_spatial_dimensions()), 4);
  out.push_back(static_cast<float>(numbers.kernel_input_feature_dimension()));
  out.push_back(static_cast<float>(numbers.kernel_output_feature_dimension()));
  append_leading(out, to_vector(numbers.kernel_spatial_dimensions()), 4);
  out.push_back(static_cast<float>(numbers.output_batch_dimension()));
  out.push_back(static_cast<float>(numbers.output_feature_dimension()));
}

void append_extended(std::vector<float>& out, const pb::HloInstructionProto& instruction) {
  const auto& dot = instruction.dot_dimension_numbers();
  append_leading(out, to_vector(dot.lhs_contracting_dimensions()), 2);
  append_leading(out, to_vector(dot.rhs_contracting_dimensions()), 2);
  append_leading(out, to_vector(dot.lhs_batch_dimensions()), 2);
  append_leading(out, to_vector(dot.rhs_batch_dimensions()), 2);
  const auto& gather = instruction.gather_dimension_numbers();
  append_leading(out, to_vector(gather.offset_dims()), 3);
  append_leading(out, to_vector(gather.collapsed_slice_dims()), 3);
  append_leading(out, to_vector(gather.start_index_map()), 3);
  out.push_back(static_cast<float>(gather.index_vector_dim()));
  append_leading(out, to_vector(instruction.gather_slice_sizes()), 6);
  // TPU tiles are 128 wide: how far a dimension is from a multiple of 128 and how many tiles
  // it spans decide padding waste, which raw sizes hide from a linear first layer.
  std::vector<int64_t> remainders;
  std::vector<int64_t> tiles;
  for (const int64_t size : instruction.shape().dimensions()) {
    remainders.push_back(size % 128);
    tiles.push_back(size / 128);
  }
  append_leading(out, remainders, 6);
  append_leading(out, tiles, 6);
}

}  // namespace

FeatureSet parse_feature_set(const std::string& name) {
  if (name == "standard") return FeatureSet::Standard;
  if (name == "extended") return FeatureSet::Extended;
  throw Error("--features", "", "unknown feature set '" + name + "' (valid: standard, extended)");
}

std::string feature_set_name(FeatureSet features) {
  return features == FeatureSet::Standard ? "standard" : "extended";
}

int64_t node_feature_width(FeatureSet features) {
  return features == FeatureSet::Standard ? kStandardNodeFeatures : kExtendedNodeFeatures;
}

void append_instruction_features(const pb::HloInstructionProto& instruction,
                                 const pb::HloComputationProto& computation, FeatureSet features,
                                 std::vector<float>& out) {
  out.push_back(instruction.id() == computation.root_id() ? 1.0f : 0.0f);
  // The reference featurizer writes a constant 0 here, whatever the layout says; we keep the
  // column identical to the release.
  out.push_back(0.0f);
  const auto& shape = instruction.shape();
  for (const int32_t type : kElementTypeColumns) {
    out.push_back(shape.element_type() == type ? 1.0f : 0.0f);
  }
  append_sequence(out, to_vector(shape.dimensions()), 6);
  out.push_back(static_cast<float>(shape.tuple_shapes_size()));
  out.push_back(static_cast<float>(instruction.parameter_number()));
  append_leading(out, to_vector(instruction.dimensions()), 6);
  append_window(out, instruction.window());
  append_convolution_dimensions(out, instruction.convolution_dimension_numbers());
  out.push_back(static_cast<float>(instruction.feature_group_count()));
  out.push_back(static_cast<float>(instruction.batch_group_count()));
  using Slice = pb::HloInstructionProto::SliceDimensions;
  const auto& slices = instruction.slice_dimensions();
  append_sequence(out, collect(slices, [](const Slice& s) { return s.start(); }), 2);
  append_sequence(out, collect(slices, [](const Slice& s) { return s.stride(); }), 2);
  append_sequence(out, collect(slices, [](const Slice& s) { return s.limit(); }), 2);
  append_sequence(out, to_vector(instruction.dynamic_slice_sizes()), 2);
  using Padding = pb::PaddingConfig::PaddingConfigDimension;
  const auto& padding = instruction.padding_config().dimensions();
  append_sequence(out, collect(padding, [](const Padding& p) { return p.edge_padding_low(); }), 2);
  append_sequence(out, collect(padding, [](const Padding& p) { return p.edge_padding_high(); }), 2);
  out.push_back(instruction.is_stable() ? 1.0f : 0.0f);
  append_leading(out, to_vector(shape.layout().minor_to_major()), 6);
  if (features == FeatureSet::Extended) append_extended(out, instruction);
}

FeaturizedModule featurize_hlo_module(const pb::HloModuleProto& module, FeatureSet features,
                                      const std::string& where) {
  FeaturizedModule result;
  data::Graph& graph = result.graph;
  graph.feature_width = node_feature_width(features);

  std::unordered_map<int64_t, int64_t> root_of_computation;
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation.instructions()) {
      const auto node = static_cast<int32_t>(graph.num_nodes++);
      if (!result.node_of_instruction.emplace(instruction.id(), node).second) {
        throw Error(where, "module " + module.name(),
                    "instruction id " + std::to_string(instruction.id()) + " appears twice");
      }
    }
    root_of_computation[computation.id()] = computation.root_id();
  }
  check_data(graph.num_nodes > 0, where, "module " + module.name(), "has no instructions");

  auto node_of = [&](int64_t instruction_id, const std::string& what) {
    const auto found = result.node_of_instruction.find(instruction_id);
    if (found == result.node_of_instruction.end()) {
      throw Error(where, "module " + module.name(),
                  what + " refers to instruction id " + std::to_string(instruction_id) +
                      ", which the module does not have");
    }
    return found->second;
  };

  graph.opcodes.reserve(graph.num_nodes);
  graph.node_features.reserve(graph.num_nodes * graph.feature_width);
  std::vector<std::pair<int32_t, int32_t>> edges;
  graph.node_splits.push_back(0);
  int64_t node = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation.instructions()) {
      const int32_t opcode = hlo_opcode_id(instruction.opcode());
      if (opcode == 0 && result.unknown_opcodes++ == 0) {
        result.first_unknown_opcode = instruction.opcode();
        result.first_unknown_instruction = instruction.name();
      }
      graph.opcodes.push_back(opcode);
      append_instruction_features(instruction, computation, features, graph.node_features);
      const auto consumer = static_cast<int32_t>(node);
      const std::string what = "instruction " + instruction.name();
      for (const int64_t operand : instruction.operand_ids()) {
        edges.emplace_back(consumer, node_of(operand, what));
      }
      for (const int64_t callee : instruction.called_computation_ids()) {
        const auto root = root_of_computation.find(callee);
        if (root == root_of_computation.end()) {
          throw Error(where, "module " + module.name(),
                      what + " calls computation id " + std::to_string(callee) +
                          ", which the module does not have");
        }
        edges.emplace_back(consumer,
                           node_of(root->second, "root of computation " + std::to_string(callee)));
      }
      ++node;
    }
    // Only the big computations start a new segment; fused and reducer bodies stay inside
    // the segment of the computation that follows them.
    const std::string& name = computation.name();
    if (name.find("cluster") != std::string::npos || name.find("while") != std::string::npos ||
        name.find("cond") != std::string::npos) {
      graph.node_splits.push_back(node);
    }
  }
  if (graph.node_splits.back() < graph.num_nodes) graph.node_splits.push_back(graph.num_nodes);

  // The reference emits edges as a canonically ordered sparse matrix without repeats.
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  graph.edges.reserve(2 * edges.size());
  for (const auto& [consumer, operand] : edges) {
    graph.edges.push_back(consumer);
    graph.edges.push_back(operand);
  }
  assert(static_cast<int64_t>(graph.node_features.size()) == graph.num_nodes * graph.feature_width);
  return result;
}

}  // namespace graphcost::io
