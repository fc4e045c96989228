// HLO module -> the graph arrays of the TpuGraphs dataset: node order, opcode ids, the 140
// node feature columns (plus optional extended ones), edges and computation splits, with the
// semantics of the public TpuGraphs featurizer. Column map: docs/ingest.md.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "data/graph.h"
#include "graphcost_hlo.pb.h"

namespace graphcost::io {

// standard: the 140 columns of the release. extended: the 140, then 36 more (dot and gather
// dimension numbers, shape dims modulo and divided by 128).
enum class FeatureSet { Standard, Extended };

constexpr int64_t kStandardNodeFeatures = 140;
constexpr int64_t kExtendedNodeFeatures = 176;

// "standard" or "extended"; an unknown name is an Error listing the valid ones.
FeatureSet parse_feature_set(const std::string& name);
std::string feature_set_name(FeatureSet features);
int64_t node_feature_width(FeatureSet features);

// A featurized module, and where each HLO instruction id landed.
struct FeaturizedModule {
  data::Graph graph;  // name left empty; adjacency not built
  std::unordered_map<int64_t, int32_t> node_of_instruction;
  // Instructions whose opcode the dataset's table does not know: they get opcode id 0 (as the
  // reference does), and callers warn about or refuse them (read_tuning_file).
  int64_t unknown_opcodes = 0;
  std::string first_unknown_opcode;       // its opcode name, when unknown_opcodes > 0
  std::string first_unknown_instruction;  // its instruction name
};

// Sum and product of int64 values with two's-complement wrap-around, as the reference
// featurizer's int64 numpy arithmetic gives. Computed in uint64, so a crafted record with huge
// values never overflows a signed integer (undefined behaviour in C++).
template <typename Values>
int64_t wrapping_sum(const Values& values) {
  uint64_t sum = 0;
  for (const int64_t value : values) sum += static_cast<uint64_t>(value);
  return static_cast<int64_t>(sum);
}
template <typename Values>
int64_t wrapping_product(const Values& values) {
  uint64_t product = 1;
  for (const int64_t value : values) product *= static_cast<uint64_t>(value);
  return static_cast<int64_t>(product);
}

// Featurizes a module. Nodes: computations in proto order (callees before callers), their
// instructions in proto order. Edges [consumer, operand], sorted and unique: each distinct
// operand, plus the root of every called computation. Splits: 0, the end of each computation
// whose name contains "cluster", "while" or "cond", and the node count. A dangling operand or
// computation id, a duplicate instruction id or an empty module is an Error naming `where`.
FeaturizedModule featurize_hlo_module(const pb::HloModuleProto& module, FeatureSet features,
                                      const std::string& where);

// Appends the feature columns of one instruction of `computation` to `out`.
void append_instruction_features(const pb::HloInstructionProto& instruction,
                                 const pb::HloComputationProto& computation, FeatureSet features,
                                 std::vector<float>& out);

}  // namespace graphcost::io
