#include "cli/scoring.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/random.h"
#include "data/prune.h"
#include "model/graph_tensors.h"
#include "model/predict.h"
#include "model/tta.h"

namespace graphcost::cli {

Run load_run(const std::string& run_dir) {
  namespace fs = std::filesystem;
  const std::string model_path = (fs::path(run_dir) / "model.pt").string();
  if (!fs::exists(model_path)) throw Error(model_path, "", "no trained model (run `graphcost train` first)");
  Run run;
  run.ranker = model::load_model(model_path);
  const std::string config_path = (fs::path(run_dir) / "config.json").string();
  if (fs::exists(config_path)) {
    nlohmann::json config = nlohmann::json::parse(read_file(config_path), nullptr, false);
    if (config.is_discarded()) throw Error(config_path, "", "not valid JSON");
    if (config.contains("collection") && config["collection"].is_string()) {
      run.collection = config["collection"].get<std::string>();
    }
    if (config.contains("prune_hops")) {
      check_data(config["prune_hops"].is_number_integer(), config_path, "prune_hops",
                 "expected an integer");
      run.prune_hops = config["prune_hops"].get<int>();
    }
    if (config.contains("prune_seeds")) {
      check_data(config["prune_seeds"].is_string(), config_path, "prune_seeds",
                 "expected a string");
      run.prune_seeds = config["prune_seeds"].get<std::string>();
    }
  }
  return run;
}

void apply_run_pruning(const Run& run, int prune_hops, data::LoadOptions& load) {
  load.prune_hops = prune_hops == kRunPruning ? run.prune_hops : prune_hops;
  load.prune_seed_opcodes = data::parse_prune_seeds(run.prune_seeds);
}

namespace {

std::vector<double> baseline_scores(const Scorer& scorer, const data::ConfigView& configs,
                                    const std::vector<int64_t>& indices, Random& random) {
  std::vector<double> scores(indices.size());
  for (double& s : scores) s = random.uniform();
  if (scorer.baseline == "random") return scores;
  if (scorer.baseline == "default") {
    if (configs.kind != data::ConfigKind::Tile || !configs.has_runtimes()) {
      throw Error("baseline 'default' needs tile configurations with runtimes (the default is the "
                  "configuration whose runtime equals its normaliser)");
    }
    // A tile runtime is config_runtime / normaliser and the normaliser is the default's runtime.
    for (size_t i = 0; i < indices.size(); ++i) {
      if (configs.runtimes[indices[i]] == 1.0) scores[i] -= 1.0;
    }
    return scores;
  }
  throw Error("unknown baseline '" + scorer.baseline + "' (valid: random, default)");
}

}  // namespace

std::vector<eval::GraphScores> score_collection(const Scorer& scorer, const data::Collection& c,
                                                int64_t max_configs) {
  std::vector<eval::GraphScores> out;
  Progress progress("score", c.size(), "graphs");
  Random random(scorer.seed);
  int64_t total_configs = 0;
  for (int64_t g = 0; g < c.size(); ++g) {
    const data::Graph& graph = c.graph(g);
    data::ConfigView configs = c.configs(g);
    std::vector<int64_t> indices(configs.count);
    std::iota(indices.begin(), indices.end(), 0);
    if (max_configs > 0 && configs.count > max_configs) {
      random.shuffle(indices);
      indices.resize(max_configs);
      std::sort(indices.begin(), indices.end());
    }
    eval::GraphScores scores;
    scores.name = graph.name;
    if (scorer.ranker) {
      model::GraphTensors tensors = model::make_graph_tensors(
          graph, model::graph_feature_options((*scorer.ranker)->options()));
      // A model trained by segments (docs/gst.md) scores by segments.
      const auto segments = model::segments_for_model(graph, (*scorer.ranker)->options());
      check_data(scorer.tta == 0 || !segments, "scoring", "--tta",
                 "does not apply to a model trained by segments (GST)");
      scores.predicted =
          scorer.tta > 0 ? model::score_configs_tta(*scorer.ranker, tensors, configs, indices,
                                                    scorer.slate_size, scorer.tta,
                                                    splitmix64_mix(scorer.seed) + g)
                         : model::score_configs(*scorer.ranker, tensors, configs, indices,
                                                scorer.slate_size, segments.get());
    } else {
      scores.predicted = baseline_scores(scorer, configs, indices, random);
    }
    if (configs.has_runtimes()) {
      for (int64_t j : indices) scores.measured.push_back(configs.runtimes[j]);
    }
    total_configs += static_cast<int64_t>(indices.size());
    out.push_back(std::move(scores));
    progress.update(g + 1, std::to_string(total_configs) + " configs");
  }
  progress.finish(std::to_string(total_configs) + " configs");
  return out;
}

}  // namespace graphcost::cli
