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
};

struct TuningFile {
  TuningFileKind kind = TuningFileKind::Layout;
  std::vector<TuningGraph> graphs;
  int64_t modules_without_runs = 0;  // tile modules skipped because they have no run at all
};

// Reads a .pb tuning file. Configurations keep the file's run order. Errors (one line naming
// the file): unreadable, truncated or foreign bytes, a module with no usable default run, a
// config_index_to_node entry beyond the node count (entries are node positions in featurizer
// order), a layout run whose node count differs from config_index_to_node.
TuningFile read_tuning_file(const std::string& path, FeatureSet features);

// The GraphRecords of a .pb tuning file, for loaders that accept .pb files next to .npz.
std::vector<data::GraphRecord> read_tuning_records(const std::string& path, FeatureSet features);

// The record features of one layout run: for each configurable node, output, input and kernel
// layout (minor-to-major dimension order), 6 values each, padded with -1.
constexpr int64_t kLayoutConfigWidth = 18;
// The features of one tile run: kernel, output and input bounds, 6 values + sum + product each.
constexpr int64_t kTileConfigWidth = 24;

}  // namespace graphcost::io
