// A whole synthetic dataset root in the TpuGraphs npz layout (all five collections, three
// splits), generated in parallel over files and written atomically; test-split runtimes go to
// a separate answers tree, and ROOT/synth_report.json records seed, scale, counts and noise
// ceilings. See docs/synthetic.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/collection.h"
#include "synth/generator.h"

namespace graphcost::synth {

enum class Scale { Small, Medium, Large };

// "small", "medium" or "large"; anything else is an Error listing them.
Scale parse_scale(const std::string& text);
std::string scale_name(Scale scale);

// How one collection is populated at a scale.
struct CollectionPlan {
  data::CollectionId id;
  int64_t files[3] = {0, 0, 0};               // train, valid, test
  int64_t min_nodes = 0, max_nodes = 0;       // log-uniform
  int64_t min_configs = 0, max_configs = 0;   // log-uniform
  double min_fraction = 0, max_fraction = 0;  // configurable share (layout), uniform
  // Cap on configs * configurable nodes per file (layout), to bound memory.
  int64_t max_layout_cells = 6'000'000;
  // A layout random collection's search: every node independently (false) or tied groups of
  // nodes with a few candidate assignments each, as real random-search files are (generator.h).
  bool tied_random_search = false;
};

std::vector<CollectionPlan> plan_for_scale(Scale scale);

// The split names in file order: train, valid, test.
const std::vector<std::string>& split_names();

// One planned file: its place, name and drawn size.
struct PlannedFile {
  int collection = 0;  // index into the plan
  int split = 0;       // index into split_names()
  int64_t index = 0;   // within the split
  std::string name;    // file stem
  uint64_t seed = 0;   // program seed (shared by a space's default and random collections)
  int64_t nodes = 0, configs = 0;
  double fraction = 0;
  ProgramFamily family = ProgramFamily::Convolutional;
};

// Draws every file's name and size from the seed (cheap; no graphs are built).
std::vector<PlannedFile> plan_files(const std::vector<CollectionPlan>& plan, uint64_t seed);

// Generates one planned file in memory (with SynthGraph::terms for a layout file when `terms`).
SynthGraph generate_file(const CollectionPlan& collection, const PlannedFile& file, double noise,
                         bool terms = false);

struct SynthOptions {
  std::string out;  // dataset root
  uint64_t seed = 0;
  Scale scale = Scale::Small;
  double noise = 0.01;               // log-normal sigma of the runtime noise
  int threads = 0;                   // 0 = OpenMP's default (all cores)
  bool compress = true;              // DEFLATE the npz entries
  bool overwrite = false;  // replace ROOT/npz, ROOT/answers and ROOT/terms when they exist
  // Also write ROOT/terms/<path below ROOT/npz>: each layout file's noiseless runtime by cost
  // term (fixed_ns, nodes_ns, followers_ns, copies_ns, noiseless_ns; float64 per configuration).
  bool terms = false;
  std::vector<CollectionPlan> plan;  // when not empty, used instead of plan_for_scale(scale)
};

struct SynthFileSummary {
  std::string collection, split, name;
  int64_t nodes = 0, configs = 0, configurable = 0;
  double noise_ceiling = 0;
};

// Writes ROOT/npz/..., ROOT/answers/<path below ROOT/npz> (test runtimes) and
// ROOT/synth_report.json. Refuses an existing ROOT/npz unless overwrite is set.
std::vector<SynthFileSummary> write_synthetic_dataset(const SynthOptions& options);

}  // namespace graphcost::synth
