#include "synth/dataset.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "io/npz.h"
#include "io/tpugraphs_npz.h"
#include "synth/random.h"

namespace graphcost::synth {

namespace fs = std::filesystem;

namespace {

// Local spellings of CollectionId::str() and relative_dir(), so the generator does not depend
// on the collection loader.
std::string id_text(const data::CollectionId& id) {
  return id.kind == data::ConfigKind::Tile ? "tile:" + id.space
                                           : "layout:" + id.space + ":" + id.search;
}

std::string id_dir(const data::CollectionId& id) {
  return id.kind == data::ConfigKind::Tile ? "npz/tile/" + id.space
                                           : "npz/layout/" + id.space + "/" + id.search;
}

uint64_t space_stream(const data::CollectionId& id) {
  if (id.kind == data::ConfigKind::Tile) return 3;
  return id.space == "nlp" ? 2 : 1;
}

CollectionPlan make_plan(const std::string& id, int64_t train, int64_t valid, int64_t test,
                         int64_t min_nodes, int64_t max_nodes, int64_t min_configs,
                         int64_t max_configs, double min_fraction, double max_fraction) {
  CollectionPlan plan;
  const size_t first = id.find(':'), second = id.find(':', first + 1);
  plan.id.kind =
      id.compare(0, first, "tile") == 0 ? data::ConfigKind::Tile : data::ConfigKind::Layout;
  plan.id.space =
      id.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  plan.id.search = second == std::string::npos ? "" : id.substr(second + 1);
  plan.files[0] = train;
  plan.files[1] = valid;
  plan.files[2] = test;
  plan.min_nodes = min_nodes;
  plan.max_nodes = max_nodes;
  plan.min_configs = min_configs;
  plan.max_configs = max_configs;
  plan.min_fraction = min_fraction;
  plan.max_fraction = max_fraction;
  return plan;
}

int64_t log_uniform_int(Random& r, int64_t lo, int64_t hi) {
  return std::clamp<int64_t>(
      std::llround(r.log_uniform(static_cast<double>(lo), static_cast<double>(hi))), lo, hi);
}

std::string file_stem(const std::string& prefix, const std::string& split, int64_t index) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s_%s_%04lld", prefix.c_str(), split.c_str(),
                static_cast<long long>(index));
  return buffer;
}

// A layout file's noiseless runtimes by cost term (SynthOptions::terms).
void write_terms(const std::string& path, const SynthGraph& graph, bool compress) {
  const int64_t count = static_cast<int64_t>(graph.terms.size());
  std::vector<double> fixed(1, count > 0 ? graph.terms[0].fixed_ns : 0.0), nodes(count),
      followers(count), copies(count);
  for (int64_t j = 0; j < count; ++j) {
    nodes[j] = graph.terms[j].nodes_ns;
    followers[j] = graph.terms[j].followers_ns;
    copies[j] = graph.terms[j].copies_ns;
  }
  io::NpzWriter writer(path, compress);
  writer.add("fixed_ns", io::make_array(fixed, {1}));
  writer.add("nodes_ns", io::make_array(nodes, {count}));
  writer.add("followers_ns", io::make_array(followers, {count}));
  writer.add("copies_ns", io::make_array(copies, {count}));
  writer.add("noiseless_ns", io::make_array(graph.noiseless, {count}));
  writer.commit();
}

void write_answers(const std::string& path, const io::RuntimeColumns& runtimes, bool compress) {
  io::NpzWriter writer(path, compress);
  const int64_t count = static_cast<int64_t>(runtimes.runtime_ns.size());
  writer.add("config_runtime", io::make_array(runtimes.runtime_ns, {count}));
  if (!runtimes.normalizer_ns.empty()) {
    writer.add("config_runtime_normalizers", io::make_array(runtimes.normalizer_ns, {count}));
  }
  writer.commit();
}

nlohmann::json report_json(const SynthOptions& options, const std::vector<CollectionPlan>& plan,
                           const std::vector<SynthFileSummary>& files) {
  nlohmann::json report;
  report["generator"] = "graphcost synth";
  report["seed"] = options.seed;
  report["scale"] = scale_name(options.scale);
  report["noise"] = options.noise;
  report["answers"] = "answers/<path below npz/>: test-split config_runtime (+ normalizers)";
  if (options.terms)
    report["terms"] =
        "terms/<path below npz/>: layout noiseless runtime by cost term (fixed_ns, nodes_ns, "
        "followers_ns, copies_ns, noiseless_ns)";
  nlohmann::json collections = nlohmann::json::object();
  for (const CollectionPlan& collection : plan) {
    for (const std::string& split : split_names()) {
      nlohmann::json entry;
      int64_t count = 0, nodes = 0, configs = 0, finite = 0;
      double sum = 0, lowest = 1;
      nlohmann::json per_graph = nlohmann::json::object();
      for (const SynthFileSummary& f : files) {
        if (f.collection != id_text(collection.id) || f.split != split) continue;
        ++count;
        nodes += f.nodes;
        configs += f.configs;
        per_graph[f.name] = f.noise_ceiling;  // NaN (all runtimes tied) becomes null
        if (std::isfinite(f.noise_ceiling)) {
          ++finite;
          sum += f.noise_ceiling;
          lowest = std::min(lowest, f.noise_ceiling);
        }
      }
      entry["files"] = count;
      entry["nodes"] = nodes;
      entry["configs"] = configs;
      entry["noise_ceiling_mean"] = finite > 0 ? sum / finite : std::nan("");
      entry["noise_ceiling_min"] = finite > 0 ? lowest : std::nan("");
      entry["noise_ceiling"] = per_graph;
      collections[id_text(collection.id)][split] = entry;
    }
  }
  report["collections"] = collections;
  return report;
}

}  // namespace

Scale parse_scale(const std::string& text) {
  if (text == "small") return Scale::Small;
  if (text == "medium") return Scale::Medium;
  if (text == "large") return Scale::Large;
  throw Error("synth", "scale", "unknown scale '" + text + "' (valid: small, medium, large)");
}

std::string scale_name(Scale scale) {
  switch (scale) {
    case Scale::Small:
      return "small";
    case Scale::Medium:
      return "medium";
    default:
      return "large";
  }
}

const std::vector<std::string>& split_names() {
  static const std::vector<std::string> names = {"train", "valid", "test"};
  return names;
}

std::vector<CollectionPlan> plan_for_scale(Scale scale) {
  std::vector<CollectionPlan> plan;
  auto add_layout = [&](int64_t train, int64_t valid, int64_t test, int64_t min_nodes,
                        int64_t max_nodes, int64_t min_configs, int64_t max_configs,
                        double min_fraction, double max_fraction) {
    for (const char* id :
         {"layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random"}) {
      plan.push_back(make_plan(id, train, valid, test, min_nodes, max_nodes, min_configs,
                               max_configs, min_fraction, max_fraction));
    }
  };
  switch (scale) {
    case Scale::Small:
      plan.push_back(make_plan("tile:xla", 40, 8, 8, 10, 60, 100, 300, 0, 0));
      add_layout(6, 2, 2, 300, 2000, 200, 500, 0.02, 0.10);
      break;
    case Scale::Medium:
      plan.push_back(make_plan("tile:xla", 300, 40, 40, 10, 60, 300, 1500, 0, 0));
      add_layout(20, 4, 4, 1000, 8000, 1000, 3000, 0.02, 0.08);
      break;
    case Scale::Large:
      plan.push_back(make_plan("tile:xla", 2000, 250, 250, 10, 60, 500, 3000, 0, 0));
      add_layout(60, 8, 8, 2000, 40000, 5000, 100000, 0.02, 0.05);
      break;
  }
  return plan;
}

std::vector<PlannedFile> plan_files(const std::vector<CollectionPlan>& plan, uint64_t seed) {
  std::vector<PlannedFile> files;
  for (size_t c = 0; c < plan.size(); ++c) {
    const CollectionPlan& collection = plan[c];
    const bool tile = collection.id.kind == data::ConfigKind::Tile;
    for (int s = 0; s < 3; ++s) {
      for (int64_t i = 0; i < collection.files[s]; ++i) {
        PlannedFile f;
        f.collection = static_cast<int>(c);
        f.split = s;
        f.index = i;
        // The program depends on the space, split and index only, so a space's default and
        // random collections hold the same programs, as in TpuGraphs.
        f.seed = derive_seed(seed, space_stream(collection.id), static_cast<uint64_t>(s),
                             static_cast<uint64_t>(i));
        Random program_random(derive_seed(f.seed, 99));
        f.nodes = log_uniform_int(program_random, collection.min_nodes, collection.max_nodes);
        f.fraction = program_random.uniform(collection.min_fraction, collection.max_fraction);
        f.family = collection.id.space == "nlp" || program_random.bernoulli(0.25)
                       ? ProgramFamily::Transformer
                       : ProgramFamily::Convolutional;
        Random config_random(derive_seed(f.seed, 98, tile ? 0 : collection.id.search == "random"));
        f.configs = log_uniform_int(config_random, collection.min_configs, collection.max_configs);
        if (!tile) {
          const int64_t configurable = std::max<int64_t>(1, std::llround(f.fraction * f.nodes));
          f.configs =
              std::max<int64_t>(1, std::min(f.configs, collection.max_layout_cells / configurable));
        }
        const std::string prefix =
            tile ? "kernel" : (f.family == ProgramFamily::Transformer ? "transformer" : "convnet");
        f.name = file_stem(prefix, split_names()[s], i);
        files.push_back(f);
      }
    }
  }
  return files;
}

SynthGraph generate_file(const CollectionPlan& collection, const PlannedFile& file, double noise,
                         bool terms) {
  SynthGraph graph;
  if (collection.id.kind == data::ConfigKind::Tile) {
    TileKernelOptions options;
    options.nodes = file.nodes;
    options.configs = file.configs;
    options.noise = noise;
    graph = synth_tile_kernel(options, file.seed);
  } else {
    LayoutGraphOptions options;
    options.nodes = file.nodes;
    options.configurable_fraction = file.fraction;
    options.configs = file.configs;
    options.family = file.family;
    options.search = collection.id.search != "random" ? LayoutSearch::Default
                     : collection.tied_random_search  ? LayoutSearch::Tied
                                                      : LayoutSearch::Random;
    options.noise = noise;
    options.config_stream = options.search == LayoutSearch::Default ? 1 : 2;
    options.terms = terms;
    graph = synth_layout_graph(options, file.seed);
  }
  graph.record.graph.name = file.name;
  return graph;
}

std::vector<SynthFileSummary> write_synthetic_dataset(const SynthOptions& options) {
  check_data(!options.out.empty(), "synth", "out", "an output folder is required");
  check_data(options.noise >= 0 && options.noise < 1, "synth", "noise",
             "must be in [0, 1), got " + std::to_string(options.noise));
  const fs::path root(options.out);
  const fs::path npz_root = root / "npz", answers_root = root / "answers",
                 terms_root = root / "terms";
  if (fs::exists(npz_root) || fs::exists(answers_root) || fs::exists(terms_root)) {
    check_data(
        options.overwrite, root.string(), "",
        "already holds a dataset (npz/, answers/ or terms/); pass --overwrite to replace it");
    fs::remove_all(npz_root);
    fs::remove_all(answers_root);
    fs::remove_all(terms_root);  // a new dataset's terms, or none
  }
  const std::vector<CollectionPlan> plan =
      options.plan.empty() ? plan_for_scale(options.scale) : options.plan;
  std::vector<PlannedFile> files = plan_files(plan, options.seed);
  for (const CollectionPlan& collection : plan) {
    for (const std::string& split : split_names()) {
      fs::create_directories(root / id_dir(collection.id) / split);
      const fs::path below_npz = fs::path(id_dir(collection.id)).lexically_relative("npz") / split;
      if (split == "test") fs::create_directories(answers_root / below_npz);
      if (options.terms && collection.id.kind == data::ConfigKind::Layout)
        fs::create_directories(terms_root / below_npz);
    }
  }
  // Largest files first, so that no thread is left with a big one at the end.
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return files[a].nodes * files[a].configs > files[b].nodes * files[b].configs;
  });
  std::vector<SynthFileSummary> summaries(files.size());
  Progress progress("synth", static_cast<int64_t>(files.size()), "files");
  int64_t done = 0;
  std::string first_error;
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  const int64_t total = static_cast<int64_t>(files.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t o = 0; o < total; ++o) {
    const PlannedFile& file = files[order[o]];
    const CollectionPlan& collection = plan[file.collection];
    const std::string& split = split_names()[file.split];
    try {
      SynthGraph graph = generate_file(collection, file, options.noise, options.terms);
      const fs::path relative = fs::path(id_dir(collection.id)) / split / (file.name + ".npz");
      if (!graph.terms.empty())
        write_terms((terms_root / relative.lexically_relative("npz")).string(), graph,
                    options.compress);
      if (split == "test") {
        write_answers((answers_root / relative.lexically_relative("npz")).string(), graph.runtimes,
                      options.compress);
        graph.record.configs.runtimes.clear();
        io::write_tpugraphs_npz((root / relative).string(), graph.record, io::RuntimeColumns{},
                                options.compress);
      } else {
        io::write_tpugraphs_npz((root / relative).string(), graph.record, graph.runtimes,
                                options.compress);
      }
      SynthFileSummary& s = summaries[order[o]];
      s.collection = id_text(collection.id);
      s.split = split;
      s.name = file.name;
      s.nodes = graph.record.graph.num_nodes;
      s.configs = graph.record.configs.count;
      s.configurable = graph.record.configs.nodes;
      s.noise_ceiling = graph.noise_ceiling;
    } catch (const std::exception& e) {
#pragma omp critical(synth_error)
      if (first_error.empty()) first_error = e.what();
    }
#pragma omp critical(synth_progress)
    progress.update(++done, file.name);
  }
  if (!first_error.empty()) {
    // No half-written dataset: a retry would be refused as "already holds a dataset".
    std::error_code ignored;
    fs::remove_all(npz_root, ignored);
    fs::remove_all(answers_root, ignored);
    throw Error(first_error);
  }
  progress.finish();
  write_file_atomically((root / "synth_report.json").string(),
                        report_json(options, plan, summaries).dump(2) + "\n");
  return summaries;
}

}  // namespace graphcost::synth
