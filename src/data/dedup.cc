#include "data/dedup.h"

#include <cstring>
#include <string_view>
#include <unordered_map>

namespace graphcost::data {

std::string_view config_bytes(const ConfigView& v, int64_t j) {
  if (v.kind == ConfigKind::Tile) {
    return {reinterpret_cast<const char*>(v.tile_config(j)), v.width * sizeof(float)};
  }
  return {reinterpret_cast<const char*>(v.layout_config(j)), static_cast<size_t>(v.nodes * v.width)};
}

std::vector<int64_t> first_identical_config(const ConfigView& configs) {
  std::unordered_map<std::string_view, int64_t> first;
  first.reserve(configs.count);
  std::vector<int64_t> result(configs.count);
  for (int64_t j = 0; j < configs.count; ++j) {
    // Tile features are floats: +0.0 and -0.0 compare equal but differ in bytes; the dataset's
    // values are non-negative bounds, so byte equality is the right notion here.
    result[j] = first.emplace(config_bytes(configs, j), j).first->second;
  }
  return result;
}

int64_t count_distinct_configs(const ConfigView& configs) {
  std::vector<int64_t> first = first_identical_config(configs);
  int64_t distinct = 0;
  for (int64_t j = 0; j < configs.count; ++j) distinct += first[j] == j;
  return distinct;
}

int64_t merge_duplicate_configs(ConfigTable& table) {
  if (table.runtimes.empty()) return 0;
  std::vector<int64_t> first = first_identical_config(table.view());
  std::vector<int64_t> keep;
  for (int64_t j = 0; j < table.count; ++j) {
    if (first[j] == j) {
      keep.push_back(j);
    } else if (table.runtimes[j] < table.runtimes[first[j]]) {
      table.runtimes[first[j]] = table.runtimes[j];
      // The kept runtime is this copy's, so is its success or failure.
      if (!table.failed.empty()) table.failed[first[j]] = table.failed[j];
    }
  }
  // A merged-away default lives on as its first identical copy.
  if (table.default_config >= 0) table.default_config = first[table.default_config];
  const int64_t removed = table.count - static_cast<int64_t>(keep.size());
  if (removed > 0) table.select(keep);
  return removed;
}

}  // namespace graphcost::data
