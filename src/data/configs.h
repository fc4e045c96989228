// Configuration tables: tile configurations (one feature vector per configuration) and layout
// configurations (one int8 vector per configurable node per configuration), with runtimes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphcost::data {

enum class ConfigKind { Tile, Layout };

std::string config_kind_name(ConfigKind kind);  // "tile" or "layout"

// A layout configuration value is a dimension index in [-1, 5] (-1: none), so it takes one of
// kLayoutValues values; models and tree features one-hot encode it over them.
constexpr int64_t kLayoutValues = 7;

// A read-only view of a graph's configurations: the same shape whether the storage is an
// in-memory table or a memory-mapped pack. Configuration j is read in O(1).
struct ConfigView {
  ConfigKind kind = ConfigKind::Tile;
  int64_t count = 0;  // c
  int64_t nodes = 0;  // nc (layout); 0 for tile
  int64_t width = 0;  // features per configuration (tile) or per configurable node (layout)
  const float* tile = nullptr;     // tile: count * width
  const int8_t* layout = nullptr;  // layout: count * nodes * width
  const double* runtimes = nullptr;  // count; nullptr when unknown (test split)
  const uint8_t* failed = nullptr;   // count, 1 = the measurement failed; nullptr when none did
  int64_t default_config = -1;       // the configuration a user gets without tuning; -1 unknown

  const float* tile_config(int64_t j) const { return tile + j * width; }
  const int8_t* layout_config(int64_t j) const { return layout + j * nodes * width; }
  bool has_runtimes() const { return runtimes != nullptr; }
};

// Owning storage behind a ConfigView.
struct ConfigTable {
  ConfigKind kind = ConfigKind::Tile;
  int64_t count = 0;
  int64_t nodes = 0;
  int64_t width = 0;
  std::vector<float> tile;
  std::vector<int8_t> layout;
  // The runtime to rank by: tile config_runtime / config_runtime_normalizers; layout
  // config_runtime. Empty when the file carries no usable runtimes.
  std::vector<double> runtimes;
  // Per configuration, 1 when its measurement failed (it did not compile or did not run). A
  // failed configuration keeps a finite stand-in runtime, larger than any successful one (the
  // source adapter documents which), so a search learns to avoid it. Empty when none failed.
  std::vector<uint8_t> failed;
  // Index of the default configuration (what a user gets without tuning), -1 when unknown or
  // not among the measured configurations.
  int64_t default_config = -1;

  ConfigView view() const;
  // Keeps only the configurations listed, in that order; failed flags follow them and
  // default_config becomes its position in keep (-1 when not kept).
  void select(const std::vector<int64_t>& keep);
};

}  // namespace graphcost::data
