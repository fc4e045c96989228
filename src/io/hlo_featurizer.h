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
};

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
