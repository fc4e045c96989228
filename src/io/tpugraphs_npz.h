// The TpuGraphs .npz file format (one graph per file) <-> GraphRecord. Keys and dtypes as in
// the released dataset; see shared/docs/formats.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/collection.h"
#include "io/npy.h"

namespace graphcost::io {

// Reads one TpuGraphs .npz. The kind is tile when the file has config_feat, layout when it has
// node_config_feat. Layout configuration values must be integers in [-128, 127] (stored int8).
// Runtimes: tile config_runtime / config_runtime_normalizers (config_runtime alone when the
// normalizers are absent), layout config_runtime; when the runtime keys are absent or all zero
// (test files), configs.runtimes is left empty. Integer keys accept any integer dtype; edge
// endpoints must lie in [0, n). Other semantic checks are left to validation in src/data.
// A missing key, wrong dtype or wrong shape is an Error "<path>: <key>: <problem>".
data::GraphRecord read_tpugraphs_npz(const std::string& path);

// The same from arrays already in memory, keyed as in the file (the Python module's graphs built
// from numpy arrays): the same checks and the same messages, "<name>: <key>: <problem>". The
// graph is named after name's stem, as a file is.
data::GraphRecord read_tpugraphs_arrays(const std::string& name,
                                        const std::map<std::string, NpyArray>& arrays);

// Integer runtime columns as the dataset stores them.
struct RuntimeColumns {
  std::vector<int64_t> runtime_ns;     // config_runtime (c)
  std::vector<int64_t> normalizer_ns;  // config_runtime_normalizers (c), tile only
};

// Writes a record as a TpuGraphs .npz (atomically). runtimes may be empty (a test file without
// answers). Dtypes: node_feat float32, node_opcode uint8 (int32 if an id is outside [0, 255]),
// edge_index int64, node_config_ids int64, node_config_feat float32, node_splits int64 (1, k),
// config_feat float32, runtimes int64.
void write_tpugraphs_npz(const std::string& path, const data::GraphRecord& record,
                         const RuntimeColumns& runtimes, bool compress);

}  // namespace graphcost::io
