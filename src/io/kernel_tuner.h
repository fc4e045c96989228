// Kernel Tuner caches (.json or .json.gz): one GPU kernel's search space measured on one device
// becomes one tile record with graph-level configurations. See docs/kernel-tuner.md for the
// encoding; in short:
//   graph: one node (opcode 0) whose features are the device's 7 columns from the device table
//          (data/device_table.h: vendor and log2 of its figures; an unknown device gets the
//          built-in table's medians and one warning line) followed by log2 of each
//          problem_size value (0 below 1), so every cache has the same columns whichever folder
//          it is read with; name "<kernel_name>_<device_name>" (characters other than
//          [A-Za-z0-9._-] -> '_').
//   configurations: the tunable parameters in order (space.json's, else tune_params_keys):
//          a numeric parameter is one column, log2(v) when every value is a positive integer
//          power of two, else v; any other parameter is a one-hot over its values.
//   runtimes: "time" in ms. A failed configuration (a time that is not a positive finite
//          number, e.g. "RuntimeFailedConfig" or "CompilationFailedConfig") is kept, flagged in
//          configs.failed, with a runtime of 10x the slowest successful one of its cache.
//   default_config: the configuration whose values are space.json's defaults, when measured.
#pragma once

#include <string>
#include <vector>

#include "data/collection.h"

namespace graphcost::io {

// True for a regular file whose name ends in .json.gz, or in .json but is not space.json.
bool is_kernel_tuner_cache(const std::string& path);

// True for a folder holding at least one file for which is_kernel_tuner_cache is true.
bool is_kernel_tuner_folder(const std::string& path);

// The readers take the device table from options.devices (a file extending the built-in
// table) and name a cache whose device_name is empty or absent options.device_name (absent and
// no device_name given: the file name's stem, as before).

// Reads one cache on its own (space.json beside it is used when present). Errors (truncated
// gzip, invalid JSON, a missing key, a record without one of the parameters, an unreadable
// device table) are one-line Errors naming the file and the key.
data::GraphRecord read_kernel_tuner_cache(const std::string& path,
                                          const data::LoadOptions& options = {});

// Reads every cache in dir (sorted by file name) with one shared layout: the same configuration
// columns, built from the union of every parameter's values over space.json, each cache's
// tune_params and the measured configurations.
std::vector<data::GraphRecord> read_kernel_tuner_folder(const std::string& dir,
                                                        const data::LoadOptions& options = {});

// How one tunable parameter is laid out in the configuration columns, so a configuration can
// be turned back into parameter values (for a search over parameters, or to run a kernel).
struct KernelTunerParameter {
  std::string name;
  int64_t column = 0;                // first configuration column
  bool one_hot = false;              // one column per value; else one numeric column
  std::vector<std::string> values;   // each value as JSON text, e.g. "16" or "\"shared\""
  std::vector<double> encoded;       // numeric: the column value of each value (log2 or v)
};

// The same readers, also returning the parameter layout of the records (the cache or folder).
std::vector<data::GraphRecord> read_kernel_tuner_source(const std::string& path,
                                                        std::vector<KernelTunerParameter>* layout,
                                                        const data::LoadOptions& options = {});

}  // namespace graphcost::io
