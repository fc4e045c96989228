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
  count = n;
}

}  // namespace graphcost::data
