// Raw TpuGraphs tuning records (.pb) -> GraphRecords and the dataset's integer runtime columns.
// A ModuleTuningData file is one layout graph; a TuningData file is one tile graph per module.
// See docs/ingest.md for the detection rule and the run filtering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/collection.h"
#include "io/hlo_featurizer.h"
#include "io/tpugraphs_npz.h"

namespace graphcost::io {

enum class TuningFileKind {
  Layout,  // a ModuleTuningData message: one module, layout configurations
  Tile,    // a TuningData message: many modules, tile configurations
};

// One graph from a tuning file, with what ingestion dropped.
struct TuningGraph {
  data::GraphRecord record;     // graph.name: layout: the file stem; tile: the module name
  RuntimeColumns runtimes;      // as the .npz stores them (normalizer_ns only for tile)
  int64_t runs = 0;             // runs in the file for this module
  int64_t error_runs = 0;       // dropped: error = true
  int64_t unmeasured_runs = 0;  // dropped: no error but no positive compute_time_ns
  int64_t unknown_opcodes = 0;  // instructions given opcode id 0 (see FeaturizedModule)
  std::string first_unknown_opcode, first_unknown_instruction;
};

struct TuningFile {
  TuningFileKind kind = TuningFileKind::Layout;
  std::vector<TuningGraph> graphs;
  int64_t modules_without_runs = 0;  // tile modules skipped because they have no run at all
  int64_t unknown_opcodes = 0;       // over all its graphs
};

// What to do with an instruction whose opcode the dataset's table does not know.
enum class UnknownOpcodes {
  Warn,    // give it id 0 (as the reference does) and print one warning line per file
  Refuse,  // an Error naming the file, the instruction and the opcode (--strict)
};

// Reads a .pb tuning file. Configurations keep the file's run order. Errors (one line naming
// the file): unreadable, truncated or foreign bytes, a module with no usable default run, a
// config_index_to_node entry beyond the node count (entries are node positions in featurizer
// order), a layout run whose node count differs from config_index_to_node, a tensor layout of
// more than 6 dimensions (the features hold 6), and, under UnknownOpcodes::Refuse, an unknown
// opcode. Under UnknownOpcodes::Warn unknown opcodes are counted in unknown_opcodes and named
// in one "graphcost: warning:" line on stderr for the whole file.
TuningFile read_tuning_file(const std::string& path, FeatureSet features,
                            UnknownOpcodes unknown = UnknownOpcodes::Warn);

// The GraphRecords of a .pb tuning file, for loaders that accept .pb files next to .npz.
std::vector<data::GraphRecord> read_tuning_records(const std::string& path, FeatureSet features,
                                                   UnknownOpcodes unknown = UnknownOpcodes::Warn);

// The record features of one layout run: for each configurable node, output, input and kernel
// layout (minor-to-major dimension order), 6 values each, padded with -1.
constexpr int64_t kLayoutConfigWidth = 18;
// The features of one tile run: kernel, output and input bounds, 6 values + sum + product each.
constexpr int64_t kTileConfigWidth = 24;

}  // namespace graphcost::io
