// Duplicate configurations: the dataset measures some configurations several times.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "data/configs.h"

namespace graphcost::data {

// Configuration j's feature bytes: configurations are identical when their bytes are. A view
// into the storage, valid as long as it is.
std::string_view config_bytes(const ConfigView& configs, int64_t j);

// For each configuration, the index of the first configuration with identical features.
std::vector<int64_t> first_identical_config(const ConfigView& configs);

// Number of distinct configurations (by features).
int64_t count_distinct_configs(const ConfigView& configs);

// Merges identical configurations into one, keeping the minimum runtime, in order of first
// occurrence (with that runtime's failed flag; the default moves to its first copy). Returns
// the number of configurations removed. Needs runtimes (no-op without).
int64_t merge_duplicate_configs(ConfigTable& table);

}  // namespace graphcost::data
