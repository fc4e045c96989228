// Tile-collection kernels: one small fused computation per file (10-60 nodes), its tile-size
// configurations (24 feature columns) and the analytical cost model behind their runtimes
// (docs/synthetic.md): padding waste, per-tile overhead, a fast-memory budget.
#pragma once

#include <cstdint>
#include <vector>

#include "synth/hlo.h"
#include "synth/random.h"

namespace graphcost::synth {

enum class KernelKind { Contraction, Reduction, Elementwise };

struct TileKernel {
  Program program;
  KernelKind kind = KernelKind::Elementwise;
  std::vector<int64_t> output_dims;  // the iteration space tiled by output_bounds
  int64_t reduction = 1;             // contracted / reduced extent (1 for elementwise)
  int element_bytes = 4;
  int64_t epilogue_ops = 1;  // elementwise ops applied per output element
};

// A tile configuration: a tile extent per output dim and one for the reduction.
struct TileConfig {
  std::vector<int64_t> output_tile;
  int64_t reduction_tile = 1;
};

struct TileCostParams {
  double bandwidth_bytes_per_ns = 1200.0;
  double flops_per_ns = 200000.0;                // matrix unit
  double vector_ops_per_ns = 8000.0;             // vector unit, elementwise work
  double launch_ns = 2000.0;                     // once per kernel
  double step_overhead_ns = 40.0;                // per tile and reduction step (pipeline bubble)
  double fast_memory_bytes = 4.0 * 1024 * 1024;  // double-buffered tiles must fit here
};

// Builds a kernel of about `nodes` nodes (10..60), deterministic in the random stream.
TileKernel build_tile_kernel(Random& random, int64_t nodes);

// The compiler's default tile: up to 128 along the minor dim, 8 along the second-minor, 1
// elsewhere, up to 512 of the reduction.
TileConfig default_tile(const TileKernel& kernel);

// Draws `count` distinct configurations (fewer if the space is smaller); the first is the
// default tile.
std::vector<TileConfig> sample_tile_configs(const TileKernel& kernel, int64_t count,
                                            Random& random);

// The 24 config_feat columns: kernel_bounds (tiles per output dim, then reduction steps),
// output_bounds (the tile), input_bounds (the tile of the main input), each 6 values + sum +
// product.
void write_tile_features(const TileKernel& kernel, const TileConfig& config, float* row);

// Noiseless runtime in ns.
double tile_runtime_ns(const TileKernel& kernel, const TileConfig& config,
                       const TileCostParams& params = {});

}  // namespace graphcost::synth
