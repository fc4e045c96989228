// Validation of a loaded graph record: every index in range, every size consistent,
// runtimes positive. A violation is an Error naming the record's file and the key.
#pragma once

#include "data/collection.h"

namespace graphcost::data {

// Checks: opcodes and features sized n; features finite; edge endpoints in [0, n);
// node_splits ascending within [0, n]; configurable node ids in range and unique;
// configuration table sized count x nodes x width with nodes == configurable node count;
// runtimes (when present) one per configuration, finite and positive; failed flags (when
// present) one per configuration, each 0 or 1; default_config -1 or a configuration index;
// layout values in [-1, 5] (a dimension index, -1 for none); tile values finite.
void validate_record(const GraphRecord& record);

// The same checks on a graph and a view of its configurations, wherever they are stored (a pack
// validates each graph this way when it is first touched); the table sizes are the view's own.
// An Error names where (a file, or a pack and graph) and the key.
void validate_graph(const Graph& graph, const ConfigView& configs, const std::string& where);

// What open_collection does to every record it reads, whatever the source: validate_record,
// then the options' pruning and duplicate merging. For records from elsewhere (a network
// request) to be read exactly as a file is. Defined in collection.cc.
void prepare_record(GraphRecord& record, const LoadOptions& options);

}  // namespace graphcost::data
