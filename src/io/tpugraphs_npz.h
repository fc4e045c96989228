// The TpuGraphs .npz file format (one graph per file) <-> GraphRecord. Keys and dtypes as in
// the released dataset; see shared/docs/formats.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/collection.h"
#include "io/array_archive.h"

namespace graphcost::io {

// Reads one TpuGraphs .npz. The kind is tile when the file has config_feat, layout when it has
// node_config_feat. Layout configuration values must be integers in [-128, 127] (stored int8).
// Runtimes: tile config_runtime / config_runtime_normalizers (config_runtime alone when the
// normalizers are absent), layout config_runtime; when the runtime keys are absent or all zero
// (test files), configs.runtimes is left empty. Integer keys accept any integer dtype; edge
// endpoints must lie in [0, n). Other semantic checks are left to validation in src/data.
// Two optional keys of graphcost's own, which `split` writes: config_failed (integer, one per
// configuration, 0 or 1) into configs.failed (left empty when none is 1), and default_config
// (integer, shape (1,)) into configs.default_config.
// A missing key, wrong dtype or wrong shape is an Error "<path>: <key>: <problem>".
data::GraphRecord read_tpugraphs_npz(const std::string& path);
// The same checks and result for arrays from any archive: an .npz held in memory, or arrays
// built from a network request (io/array_archive.h). The graph is named after the archive's path
// (its stem).
data::GraphRecord read_tpugraphs_record(const ArrayArchive& archive);

// Integer runtime columns as the dataset stores them.
struct RuntimeColumns {
  std::vector<int64_t> runtime_ns;     // config_runtime (c)
  std::vector<int64_t> normalizer_ns;  // config_runtime_normalizers (c), tile only
};

// Writes a record as a TpuGraphs .npz (atomically). runtimes may be empty (a test file without
// answers). Dtypes: node_feat float32, node_opcode uint8 (int32 if an id is outside [0, 255]),
// edge_index int64, node_config_ids int64, node_config_feat float32, node_splits int64 (1, k),
// config_feat float32, runtimes int64; config_failed uint8 when any configuration failed and
// default_config int64 (1,) when it is known.
void write_tpugraphs_npz(const std::string& path, const data::GraphRecord& record,
                         const RuntimeColumns& runtimes, bool compress);

}  // namespace graphcost::io
