#include "data/configs.h"

#include <cstring>

namespace graphcost::data {

std::string config_kind_name(ConfigKind kind) { return kind == ConfigKind::Tile ? "tile" : "layout"; }

ConfigView ConfigTable::view() const {
  ConfigView v;
  v.kind = kind;
  v.count = count;
  v.nodes = nodes;
  v.width = width;
  v.tile = tile.empty() ? nullptr : tile.data();
  v.layout = layout.empty() ? nullptr : layout.data();
  v.runtimes = runtimes.empty() ? nullptr : runtimes.data();
  v.failed = failed.empty() ? nullptr : failed.data();
  v.default_config = default_config;
  return v;
}

void ConfigTable::select(const std::vector<int64_t>& keep) {
  const int64_t n = static_cast<int64_t>(keep.size());
  if (kind == ConfigKind::Tile) {
    std::vector<float> out(n * width);
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(&out[i * width], &tile[keep[i] * width], width * sizeof(float));
    }
    tile.swap(out);
  } else {
    const int64_t stride = nodes * width;
    std::vector<int8_t> out(n * stride);
    for (int64_t i = 0; i < n; ++i) std::memcpy(&out[i * stride], &layout[keep[i] * stride], stride);
    layout.swap(out);
  }
  if (!runtimes.empty()) {
    std::vector<double> out(n);
    for (int64_t i = 0; i < n; ++i) out[i] = runtimes[keep[i]];
    runtimes.swap(out);
  }
  if (!failed.empty()) {
    std::vector<uint8_t> out(n);
    for (int64_t i = 0; i < n; ++i) out[i] = failed[keep[i]];
    failed.swap(out);
  }
  int64_t new_default = -1;
  for (int64_t i = 0; i < n && default_config >= 0; ++i) {
    if (keep[i] == default_config) {
      new_default = i;
      break;
    }
  }
  default_config = new_default;
  count = n;
}

}  // namespace graphcost::data
