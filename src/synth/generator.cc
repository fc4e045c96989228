#include "synth/generator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>

#include "core/error.h"
#include "synth/layout_cost.h"
#include "synth/random.h"
#include "synth/tile_kernel.h"

namespace graphcost::synth {

namespace {

constexpr int kLayoutWidth = 18;

// Stream ids for derive_seed, one per purpose, so that changing how one part draws numbers
// leaves the others unchanged.
enum Stream : uint64_t {
  kProgramStream = 1,
  kConfigStream = 2,
  kNoiseStream = 3,
  kSampleStream = 4
};

// Writes a random permutation of 0..rank-1 into out (minor_to_major order).
void random_permutation(Random& r, int rank, int8_t* out) {
  std::vector<int8_t> values(rank);
  for (int i = 0; i < rank; ++i) values[i] = static_cast<int8_t>(i);
  r.shuffle(values);
  std::copy(values.begin(), values.end(), out);
}

// A layout one step from the default: the default order with the minor dim swapped with another.
void near_default_permutation(Random& r, int rank, int8_t* out) {
  for (int i = 0; i < rank; ++i) out[i] = static_cast<int8_t>(rank - 1 - i);
  if (rank >= 2) std::swap(out[0], out[r.uniform_int(1, rank - 1)]);
}

// One configurable node's 18 values in an independent random search: each of its three
// layouts is a random permutation of its dims with probability 0.85, else left to the compiler.
// Writes them to out[0..18).
void random_node_layouts(const std::vector<int>& ranks, int64_t node, Random& r, int8_t* out) {
  for (int64_t t = 0; t < 3; ++t) {
    const int rank = ranks[3 * node + t];
    if (rank > 0 && r.bernoulli(0.85)) random_permutation(r, rank, out + 6 * t);
  }
}

// One group of the tied search (LayoutSearch::Tied): consecutive configurable nodes whose values
// change together, with a few candidate assignments, drawn by weight.
struct TiedGroup {
  int64_t first = 0, size = 0;     // its configurable nodes: [first, first + size)
  std::vector<int8_t> candidates;  // candidates x size x 18 values
  std::vector<double> cumulative;  // cumulative candidate weights

  // Writes a candidate, drawn by weight, into its nodes' places in a configuration's row.
  void draw_into(Random& r, int8_t* row) const {
    const double u = r.uniform() * cumulative.back();
    // u < cumulative.back() but for rounding, hence the clamp to the last candidate.
    const int64_t c = std::min<int64_t>(
        std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin(),
        static_cast<int64_t>(cumulative.size()) - 1);
    const int64_t cells = size * kLayoutWidth;
    const int8_t* chosen = candidates.data() + c * cells;
    std::copy(chosen, chosen + cells, row + first * kLayoutWidth);
  }
};

// The tied search's groups: consecutive configurable nodes in groups of 1 (2/3 of groups), 4
// (1/9) or 8 (2/9) nodes, as in AlexNet's 9 groups; each group with 2-9 candidate assignments
// (uniform), the first half of them 14x as likely as the rest.
std::vector<TiedGroup> draw_tied_groups(const std::vector<int>& ranks, Random& r) {
  const int64_t nc = static_cast<int64_t>(ranks.size() / 3);
  std::vector<TiedGroup> groups;
  for (int64_t node = 0; node < nc;) {
    TiedGroup group;
    group.first = node;
    const double u = r.uniform();
    group.size = std::min<int64_t>(nc - node, u < 6.0 / 9 ? 1 : (u < 7.0 / 9 ? 4 : 8));
    const int64_t options = r.uniform_int(2, 9);
    group.candidates.assign(options * group.size * kLayoutWidth, -1);
    double total = 0;
    for (int64_t c = 0; c < options; ++c) {
      for (int64_t k = 0; k < group.size; ++k) {
        random_node_layouts(ranks, node + k, r,
                            group.candidates.data() + (c * group.size + k) * kLayoutWidth);
      }
      total += 2 * c < options ? 1.0 : 1.0 / 14;
      group.cumulative.push_back(total);
    }
    node += group.size;
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<int8_t> draw_layout_configs(const std::vector<int>& ranks, int64_t count,
                                        LayoutSearch search, Random& r) {
  const int64_t nc = static_cast<int64_t>(ranks.size() / 3);
  const int64_t row_size = nc * kLayoutWidth;
  std::vector<int8_t> values(count * row_size, -1);
  const std::vector<TiedGroup> tied =
      search == LayoutSearch::Tied ? draw_tied_groups(ranks, r) : std::vector<TiedGroup>{};
  std::unordered_set<std::string> seen;
  std::vector<int64_t> order(nc);
  for (int64_t j = 0; j < count; ++j) {
    int8_t* row = values.data() + j * row_size;
    for (int attempt = 0; attempt < 20; ++attempt) {
      std::fill(row, row + row_size, static_cast<int8_t>(-1));
      if (search == LayoutSearch::Random) {
        for (int64_t k = 0; k < nc; ++k) random_node_layouts(ranks, k, r, row + k * kLayoutWidth);
      } else if (search == LayoutSearch::Tied) {
        for (const TiedGroup& group : tied) group.draw_into(r, row);
      } else if (j > 0) {
        // Change a few nodes (1 + geometric) away from the compiler default.
        int64_t changed = 1;
        while (changed < nc && r.bernoulli(0.5)) ++changed;
        for (int64_t k = 0; k < nc; ++k) order[k] = k;
        r.shuffle(order);
        for (int64_t c = 0; c < changed; ++c) {
          const int64_t k = order[c];
          for (int t = 0; t < 3; ++t) {
            const int64_t s = 3 * k + t;
            if (ranks[s] <= 0 || (t > 0 && r.bernoulli(0.4))) continue;
            if (r.bernoulli(0.5)) {
              near_default_permutation(r, ranks[s], row + 6 * s);
            } else {
              random_permutation(r, ranks[s], row + 6 * s);
            }
          }
        }
      }
      if (seen.insert(std::string(reinterpret_cast<const char*>(row), row_size)).second) break;
    }
  }
  return values;
}

// Multiplies each runtime by exp(sigma * N(0, 1)) and rounds to whole ns (at least 1).
std::vector<int64_t> add_noise(const std::vector<double>& noiseless, double sigma, Random& r) {
  std::vector<int64_t> noisy(noiseless.size());
  for (size_t j = 0; j < noiseless.size(); ++j) {
    const double factor = sigma > 0 ? std::exp(sigma * r.normal()) : 1.0;
    noisy[j] = std::max<int64_t>(1, std::llround(noiseless[j] * factor));
  }
  return noisy;
}

}  // namespace

double kendall_tau_b_pairs(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  int64_t concordant = 0, discordant = 0, tied_x = 0, tied_y = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0) ++tied_x;
      if (dy == 0) ++tied_y;
      if (dx == 0 || dy == 0) continue;
      ((dx > 0) == (dy > 0) ? concordant : discordant)++;
    }
  }
  const double pairs = static_cast<double>(n) * (static_cast<double>(n) - 1) / 2;
  const double denominator = std::sqrt((pairs - tied_x) * (pairs - tied_y));
  if (denominator == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(concordant - discordant) / denominator;
}

double noise_ceiling(const std::vector<double>& noiseless, const std::vector<double>& noisy,
                     uint64_t seed, int64_t max_sample) {
  const int64_t n = static_cast<int64_t>(noiseless.size());
  std::vector<int64_t> index(n);
  for (int64_t i = 0; i < n; ++i) index[i] = i;
  if (n > max_sample) {
    Random r(seed);
    for (int64_t i = 0; i < max_sample; ++i) std::swap(index[i], index[r.uniform_int(i, n - 1)]);
    index.resize(max_sample);
  }
  std::vector<double> a, b;
  for (int64_t i : index) {
    a.push_back(noiseless[i]);
    b.push_back(noisy[i]);
  }
  return kendall_tau_b_pairs(a, b);
}

SynthGraph synth_layout_graph(const LayoutGraphOptions& options, uint64_t seed) {
  check_data(options.configs >= 1, "synth", "configs",
             "need at least one configuration, got " + std::to_string(options.configs));
  check_data(options.noise >= 0, "synth", "noise", "must be >= 0");
  LayoutProgram program = build_layout_program(derive_seed(seed, kProgramStream), options.family,
                                               options.nodes, options.configurable_fraction);
  const std::vector<Instruction> nodes = program.program.flatten();
  const LayoutCostModel model(nodes, program.configurable);
  const int64_t nc = static_cast<int64_t>(program.configurable.size());
  Random config_random(derive_seed(seed, kConfigStream, options.config_stream));
  SynthGraph out;
  data::ConfigTable& configs = out.record.configs;
  configs.kind = data::ConfigKind::Layout;
  configs.count = options.configs;
  configs.nodes = nc;
  configs.width = kLayoutWidth;
  configs.layout =
      draw_layout_configs(model.tensor_ranks(), options.configs, options.search, config_random);
  out.noiseless.resize(options.configs);
  const int64_t row_size = nc * kLayoutWidth;
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < options.configs; ++j) {
    out.noiseless[j] = model.runtime_ns(configs.layout.data() + j * row_size);
  }
  if (options.terms) {
    out.terms.resize(options.configs);
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < options.configs; ++j)
      out.terms[j] = model.terms_ns(configs.layout.data() + j * row_size);
  }
  Random noise_random(derive_seed(seed, kNoiseStream, options.config_stream));
  out.runtimes.runtime_ns = add_noise(out.noiseless, options.noise, noise_random);
  configs.runtimes.assign(out.runtimes.runtime_ns.begin(), out.runtimes.runtime_ns.end());
  out.record.graph = program.program.to_graph("");
  out.record.graph.configurable_nodes = program.configurable;
  out.noise_ceiling =
      noise_ceiling(out.noiseless, configs.runtimes, derive_seed(seed, kSampleStream));
  return out;
}

data::GraphRecord synth_layout_graph(int64_t nodes, double configurable_fraction, int64_t configs,
                               uint64_t seed, io::RuntimeColumns* runtimes_out) {
  LayoutGraphOptions options;
  options.nodes = nodes;
  options.configurable_fraction = configurable_fraction;
  options.configs = configs;
  SynthGraph graph = synth_layout_graph(options, seed);
  if (runtimes_out != nullptr) *runtimes_out = std::move(graph.runtimes);
  return std::move(graph.record);
}

SynthGraph synth_tile_kernel(const TileKernelOptions& options, uint64_t seed) {
  check_data(options.configs >= 1, "synth", "configs",
             "need at least one configuration, got " + std::to_string(options.configs));
  check_data(options.noise >= 0, "synth", "noise", "must be >= 0");
  Random program_random(derive_seed(seed, kProgramStream));
  const TileKernel kernel = build_tile_kernel(program_random, options.nodes);
  Random config_random(derive_seed(seed, kConfigStream));
  std::vector<TileConfig> tiles = sample_tile_configs(kernel, options.configs, config_random);
  const int64_t count = static_cast<int64_t>(tiles.size());
  SynthGraph out;
  out.noiseless.resize(count);
  for (int64_t j = 0; j < count; ++j) out.noiseless[j] = tile_runtime_ns(kernel, tiles[j]);
  Random noise_random(derive_seed(seed, kNoiseStream));
  std::vector<int64_t> noisy = add_noise(out.noiseless, options.noise, noise_random);
  // The default tile (drawn first) is measured once; that measurement normalises the kernel.
  const int64_t normalizer = noisy[0];
  // Store configurations in a shuffled order, so the default is not always first.
  std::vector<int64_t> order(count);
  for (int64_t j = 0; j < count; ++j) order[j] = j;
  config_random.shuffle(order);
  data::ConfigTable& configs = out.record.configs;
  configs.kind = data::ConfigKind::Tile;
  configs.count = count;
  configs.width = 24;
  configs.tile.resize(count * 24);
  std::vector<double> noiseless(count);
  for (int64_t j = 0; j < count; ++j) {
    const int64_t source = order[j];
    write_tile_features(kernel, tiles[source], configs.tile.data() + j * 24);
    noiseless[j] = out.noiseless[source];
    out.runtimes.runtime_ns.push_back(noisy[source]);
    out.runtimes.normalizer_ns.push_back(normalizer);
    configs.runtimes.push_back(static_cast<double>(noisy[source]) /
                               static_cast<double>(normalizer));
  }
  out.noiseless = std::move(noiseless);
  out.record.graph = kernel.program.to_graph("");
  out.record.graph.node_splits.clear();  // tile files in the release have no node_splits
  std::vector<double> noisy_ns(out.runtimes.runtime_ns.begin(), out.runtimes.runtime_ns.end());
  out.noise_ceiling = noise_ceiling(out.noiseless, noisy_ns, derive_seed(seed, kSampleStream));
  return out;
}

}  // namespace graphcost::synth
