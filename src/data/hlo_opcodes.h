// HLO opcode names -> the opcode ids of the TpuGraphs dataset (node_opcode). The dataset keeps
// its own stable numbering (not XLA's enum order); id 0 means an opcode it does not know.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace graphcost::data {

// The TpuGraphs id of an HLO opcode name such as "convolution" (26); 0 when unknown.
int32_t hlo_opcode_id(std::string_view opcode_name);

// The opcode name of a TpuGraphs id, or "unknown" for 0 and ids not in the table.
std::string hlo_opcode_name(int32_t opcode_id);

// One more than the largest id in the table (the size an embedding table needs).
int32_t hlo_opcode_count();

}  // namespace graphcost::data
