// The synthetic TpuGraphs generator, one file's content at a time: a model-like program (layout)
// or a small kernel (tile), its configurations, and runtimes from the analytical cost models
// with multiplicative log-normal measurement noise. Deterministic in the seed; no I/O here
// (dataset.h writes the files).
#pragma once

#include <cstdint>
#include <vector>

#include "data/collection.h"
#include "io/tpugraphs_npz.h"
#include "synth/layout_cost.h"
#include "synth/model_programs.h"

namespace graphcost::synth {

// How layout configurations are drawn: near the compiler default (few nodes changed from all
// -1); independently random per node (each slot any permutation of its dims); or a random search
// over tied groups, the way real random-search files are: AlexNet's (shared/data, 47,712
// configurations) has its 26 configurable nodes in 9 groups of 1, 4 or 8 nodes whose values
// always change together, and each group takes one of only 2-9 assignments, about half of them
// common (~14x as frequent as the rest).
enum class LayoutSearch { Default, Random, Tied };

struct LayoutGraphOptions {
  int64_t nodes = 1000;                 // exact node count (>= kMinLayoutProgramNodes)
  double configurable_fraction = 0.05;  // configurable nodes / nodes
  int64_t configs = 1000;               // configurations (fewer only if the space is tiny)
  ProgramFamily family = ProgramFamily::Convolutional;
  LayoutSearch search = LayoutSearch::Random;
  double noise = 0.01;  // sigma of the log-normal runtime noise (0 = noiseless)
  // Mixed into the configuration and noise seeds only: two collections can share a program
  // (same seed) and still draw their own configurations, as TpuGraphs' default and random do.
  uint64_t config_stream = 0;
  bool terms = false;  // also fill SynthGraph::terms (the noiseless runtime by cost term)
};

struct TileKernelOptions {
  int64_t nodes = 40;     // about this many nodes (10..60 in the datasets)
  int64_t configs = 200;  // configurations (fewer if the kernel has fewer distinct tiles)
  double noise = 0.01;
};

// One generated file.
struct SynthGraph {
  data::GraphRecord record;       // graph and configurations; configs.runtimes = what a reader
                                  // of the written file gets (layout ns, tile runtime/normalizer)
  io::RuntimeColumns runtimes;    // the integer columns the file stores (noisy)
  std::vector<double> noiseless;  // noiseless runtime in ns per configuration
  double noise_ceiling = 1.0;     // Kendall tau-b between noiseless and noisy runtimes
  // Layout, with LayoutGraphOptions::terms: the noiseless runtime of each configuration split by
  // the cost model's terms; empty otherwise.
  std::vector<LayoutCostTerms> terms;
};

// A layout graph: `options.nodes` nodes, about configurable_fraction of them configurable,
// options.configs configurations of 18 values per configurable node. Deterministic in seed.
SynthGraph synth_layout_graph(const LayoutGraphOptions& options, uint64_t seed);

// Shorthand for benchmarks: a convolutional program with random-search configurations and 1%
// noise; the integer runtime columns go to *runtimes_out when it is not null.
data::GraphRecord synth_layout_graph(int64_t nodes, double configurable_fraction, int64_t configs,
                                     uint64_t seed, io::RuntimeColumns* runtimes_out);

// A tile kernel with its tile configurations; the first configuration is the default tile,
// whose noisy runtime is every configuration's normalizer.
SynthGraph synth_tile_kernel(const TileKernelOptions& options, uint64_t seed);

// Kendall tau-b by counting all pairs, O(n^2): for noise ceilings on small samples.
double kendall_tau_b_pairs(const std::vector<double>& x, const std::vector<double>& y);

// Kendall tau-b between noiseless and noisy on a seeded sample of at most max_sample entries.
double noise_ceiling(const std::vector<double>& noiseless, const std::vector<double>& noisy,
                     uint64_t seed, int64_t max_sample = 2000);

}  // namespace graphcost::synth
