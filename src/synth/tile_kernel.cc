#include "synth/tile_kernel.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "synth/program_builder.h"

namespace graphcost::synth {

namespace {

using Dims = std::vector<int64_t>;

constexpr double kMaxTiles = 16384;

double round_up(double x, double multiple) { return std::ceil(x / multiple) * multiple; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool is_vector_op(int op) {
  return op == opcode::kAdd || op == opcode::kSubtract || op == opcode::kMultiply ||
         op == opcode::kDivide || op == opcode::kMaximum || op == opcode::kSelect ||
         op == opcode::kCompare || op == opcode::kConvert || op == opcode::kExponential ||
         op == opcode::kTanh || op == opcode::kRsqrt || op == opcode::kNegate || op == opcode::kLog;
}

// Tile extents worth trying for a dim of size d: powers of two up to the dim (one past it,
// which pads) and the dim itself, capped at `cap`.
std::vector<int64_t> tile_choices(int64_t d, int64_t cap, int64_t smallest) {
  std::vector<int64_t> values;
  for (int64_t p = std::min(smallest, d); p <= cap; p *= 2) {
    values.push_back(p);
    if (p >= d) break;
  }
  if (d <= cap && std::find(values.begin(), values.end(), d) == values.end()) values.push_back(d);
  return values;
}

// Rows of a tile padded to the (8, 128) hardware tiling, with `minor` as the minor extent.
double padded_tile(const std::vector<int64_t>& tile, int64_t minor) {
  double elements = round_up(static_cast<double>(minor), 128.0);
  if (!tile.empty()) {
    elements *= round_up(static_cast<double>(tile.back()), 8.0);
    for (size_t i = 0; i + 1 < tile.size(); ++i) elements *= static_cast<double>(tile[i]);
  }
  return elements;
}

int write_bounds(float* out, const std::vector<int64_t>& values) {
  double sum = 0, product = 1;
  for (int i = 0; i < 6; ++i) out[i] = i < static_cast<int>(values.size()) ? values[i] : 0.0f;
  for (int64_t v : values) {
    sum += static_cast<double>(v);
    product *= static_cast<double>(v);
  }
  out[6] = static_cast<float>(sum);
  out[7] = values.empty() ? 0.0f : static_cast<float>(product);  // tile features: empty -> 0
  return 8;
}

}  // namespace

TileKernel build_tile_kernel(Random& r, int64_t nodes) {
  TileKernel kernel;
  ProgramBuilder b(r);
  const int type = r.bernoulli(0.5) ? element_type::kBf16 : element_type::kF32;
  kernel.element_bytes = element_bytes(type);
  const double u = r.uniform();
  int32_t out;
  if (u < 0.25) {
    kernel.kind = KernelKind::Contraction;  // dense layer
    const Dims sizes = {64, 100, 128, 196, 256, 384, 512, 768, 1000, 1024, 2048, 3072, 4096};
    const int64_t m = r.pick(sizes), n = r.pick(sizes), k = r.pick(sizes);
    const int32_t a = b.parameter({m, k}, type);
    const int32_t w = b.parameter({k, n}, type);
    out = b.dot(a, w, {m, n});
    kernel.reduction = k;
  } else if (u < 0.45) {
    kernel.kind = KernelKind::Contraction;  // convolution
    const int64_t batch = r.pick(Dims{1, 8, 16, 32, 64, 128});
    const int64_t spatial = r.pick(Dims{7, 14, 28, 56, 112});
    const int64_t in_channels = r.pick(Dims{3, 32, 64, 128, 256, 512});
    const int64_t out_channels = r.pick(Dims{32, 64, 96, 128, 256, 512, 1024});
    const int64_t window = r.pick(Dims{1, 3, 3, 5});
    const int32_t x = b.parameter({batch, spatial, spatial, in_channels}, type);
    const int32_t w = b.parameter({window, window, in_channels, out_channels}, type);
    out = b.convolution(x, w, 1);
    kernel.reduction = window * window * in_channels;
  } else if (u < 0.7) {
    kernel.kind = KernelKind::Reduction;
    const Dims sizes = {8, 32, 64, 128, 197, 256, 512, 1024, 4096};
    const int64_t rows = r.pick(sizes), cols = r.pick(sizes), reduced = r.pick(sizes);
    int32_t x = b.parameter({rows, cols, reduced}, type);
    if (r.bernoulli(0.5)) x = b.elementwise(opcode::kExponential, x);
    out = b.reduce(x, {2}, r.bernoulli(0.3) ? opcode::kMaximum : opcode::kAdd);
    kernel.reduction = reduced;
  } else {
    kernel.kind = KernelKind::Elementwise;
    const Dims sizes = {3, 8, 16, 49, 64, 128, 256, 512, 1024, 2048};
    Dims dims = {r.pick(sizes), r.pick(sizes)};
    if (r.bernoulli(0.5)) dims.insert(dims.begin(), r.pick(Dims{1, 8, 32, 128}));
    out = b.parameter(dims, type);
    const int64_t inputs = r.uniform_int(1, 3);
    for (int64_t i = 0; i < inputs; ++i) {
      out = b.elementwise(opcode::kAdd, out, b.parameter(dims, type));
    }
    kernel.reduction = 1;
  }
  // Epilogue: bias, activation and conversions until the kernel has about `nodes` nodes.
  const Dims out_dims = b.at(out).dims;
  if (kernel.kind == KernelKind::Contraction && r.bernoulli(0.6)) {
    const int32_t bias = b.parameter({out_dims.back()}, type);
    out = b.elementwise(opcode::kAdd, out,
                        b.broadcast(bias, out_dims, {static_cast<int64_t>(out_dims.size()) - 1}));
  }
  if (b.size() < nodes - 1) out = b.elementwise_chain(out, nodes - 1 - b.size());
  b.set_root(out);
  kernel.output_dims = out_dims;
  kernel.program = b.finish();
  kernel.epilogue_ops = 0;
  for (const auto& computation : kernel.program.computations) {
    for (const Instruction& inst : computation) kernel.epilogue_ops += is_vector_op(inst.opcode);
  }
  kernel.epilogue_ops = std::max<int64_t>(1, kernel.epilogue_ops);
  return kernel;
}

TileConfig default_tile(const TileKernel& kernel) {
  TileConfig config;
  const size_t rank = kernel.output_dims.size();
  config.output_tile.assign(rank, 1);
  if (rank >= 1)
    config.output_tile[rank - 1] = std::min<int64_t>(kernel.output_dims[rank - 1], 128);
  if (rank >= 2) config.output_tile[rank - 2] = std::min<int64_t>(kernel.output_dims[rank - 2], 8);
  config.reduction_tile = std::min<int64_t>(kernel.reduction, 512);
  return config;
}

std::vector<TileConfig> sample_tile_configs(const TileKernel& kernel, int64_t count, Random& r) {
  std::vector<std::vector<int64_t>> choices;
  // The compiler never proposes tiles thinner than 8 along the two minor dims.
  const size_t rank = kernel.output_dims.size();
  for (size_t i = 0; i < rank; ++i) {
    choices.push_back(tile_choices(kernel.output_dims[i], 1024, i + 2 >= rank ? 8 : 1));
  }
  const std::vector<int64_t> reduction_choices =
      kernel.reduction > 1 ? tile_choices(kernel.reduction, 4096, 8) : std::vector<int64_t>{1};
  double space = static_cast<double>(reduction_choices.size());
  for (const auto& c : choices) space *= static_cast<double>(c.size());
  count = std::min<int64_t>(count, static_cast<int64_t>(std::min(space, 1e9)));
  std::vector<TileConfig> configs = {default_tile(kernel)};
  std::set<std::vector<int64_t>> seen;
  auto key = [](const TileConfig& c) {
    std::vector<int64_t> k = c.output_tile;
    k.push_back(c.reduction_tile);
    return k;
  };
  seen.insert(key(configs[0]));
  int64_t attempts = 0;
  while (static_cast<int64_t>(configs.size()) < count && attempts < 50 * count) {
    ++attempts;
    TileConfig c;
    for (const auto& options : choices) c.output_tile.push_back(r.pick(options));
    c.reduction_tile = r.pick(reduction_choices);
    // Nor grids of more than kMaxTiles tiles and reduction steps.
    double grid = static_cast<double>(ceil_div(kernel.reduction, c.reduction_tile));
    for (size_t i = 0; i < rank; ++i) {
      grid *= static_cast<double>(ceil_div(kernel.output_dims[i], c.output_tile[i]));
    }
    if (grid > kMaxTiles) continue;
    if (seen.insert(key(c)).second) configs.push_back(std::move(c));
  }
  return configs;
}

void write_tile_features(const TileKernel& kernel, const TileConfig& config, float* row) {
  std::vector<int64_t> grid;
  for (size_t i = 0; i < kernel.output_dims.size(); ++i) {
    grid.push_back(ceil_div(kernel.output_dims[i], config.output_tile[i]));
  }
  if (kernel.reduction > 1) grid.push_back(ceil_div(kernel.reduction, config.reduction_tile));
  std::vector<int64_t> input = config.output_tile;
  if (kernel.kind == KernelKind::Contraction && !input.empty()) {
    input.back() = config.reduction_tile;
  } else if (kernel.kind == KernelKind::Reduction) {
    input.push_back(config.reduction_tile);
  }
  row += write_bounds(row, grid);
  row += write_bounds(row, config.output_tile);
  write_bounds(row, input);
}

double tile_runtime_ns(const TileKernel& kernel, const TileConfig& config,
                       const TileCostParams& params) {
  const auto& dims = kernel.output_dims;
  const auto& tile = config.output_tile;
  double tiles = 1;
  for (size_t i = 0; i < dims.size(); ++i) tiles *= static_cast<double>(ceil_div(dims[i], tile[i]));
  const int64_t tk = std::max<int64_t>(1, config.reduction_tile);
  const double steps = static_cast<double>(ceil_div(kernel.reduction, tk));
  const std::vector<int64_t> rows(tile.begin(), tile.end() - (tile.empty() ? 0 : 1));
  const double out_tile = padded_tile(rows, tile.empty() ? 1 : tile.back());
  double in_tile = 0, weight_tile = 0, compute_ns = 0;
  switch (kernel.kind) {
    case KernelKind::Contraction:
      in_tile = padded_tile(rows, tk);
      weight_tile = padded_tile({tk}, tile.back());
      compute_ns = 2.0 * tiles * steps * out_tile * static_cast<double>(tk) / params.flops_per_ns;
      break;
    case KernelKind::Reduction:
      in_tile = padded_tile(tile, tk);
      compute_ns = tiles * steps * in_tile / params.vector_ops_per_ns;
      break;
    case KernelKind::Elementwise:
      in_tile = 2.0 * out_tile;
      break;
  }
  compute_ns +=
      tiles * out_tile * static_cast<double>(kernel.epilogue_ops) / params.vector_ops_per_ns;
  double bytes = tiles * (out_tile + steps * (in_tile + weight_tile)) * kernel.element_bytes;
  // Double-buffered input tiles and a float32 accumulator must fit in fast memory; beyond the
  // budget the excess spills and is moved again.
  const double footprint = 2.0 * (out_tile * 4.0 + (in_tile + weight_tile) * kernel.element_bytes);
  if (footprint > params.fast_memory_bytes) {
    bytes *= 1.0 + 2.0 * (footprint / params.fast_memory_bytes - 1.0);
  }
  const double memory_ns = bytes / params.bandwidth_bytes_per_ns;
  return params.launch_ns + tiles * steps * params.step_overhead_ns +
         std::max(compute_ns, memory_ns) + 0.25 * std::min(compute_ns, memory_ns);
}

}  // namespace graphcost::synth
