#include "cli/scoring.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <memory>
#include <mutex>
#include <numeric>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/random.h"
#include "data/prune.h"
#include "dist/collectives.h"
#include "eval/ensemble.h"
#include "model/graph_tensors.h"
#include "model/predict.h"
#include "model/segments.h"
#include "model/threads.h"
#include "model/tta.h"
#include "model/uncertainty.h"

namespace graphcost::cli {

namespace {
// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 16: syntax error
// while parsing value - unexpected end of input; ..." without its prefix.
std::string first_reason(const std::string& what) {
  const size_t dash = what.find(" - ");
  return dash == std::string::npos ? what : what.substr(dash + 3);
}
}  // namespace

Run load_run(const std::string& run_dir) {
  namespace fs = std::filesystem;
  Run run;
  nlohmann::json config;
  const std::string config_path = (fs::path(run_dir) / "config.json").string();
  if (fs::exists(config_path)) {
    try {
      config = nlohmann::json::parse(read_file(config_path));
    } catch (const nlohmann::json::parse_error& e) {
      throw Error(config_path, "", "not valid JSON (truncated or damaged?): byte " +
                                       std::to_string(e.byte) + ": " + first_reason(e.what()));
    }
    check_data(config.is_object(), config_path, "", "not a JSON object");
    if (config.contains("collection")) {
      check_data(config["collection"].is_string(), config_path, "collection", "expected a string");
      run.collection = config["collection"].get<std::string>();
    }
    if (config.contains("prune_hops")) {
      check_data(config["prune_hops"].is_number_integer(), config_path, "prune_hops",
                 "expected an integer");
      run.prune_hops = config["prune_hops"].get<int>();
    }
    if (config.contains("slate_size")) {
      check_data(config["slate_size"].is_number_integer() && config["slate_size"].get<int64_t>() > 0,
                 config_path, "slate_size", "expected a positive integer");
      run.slate_size = config["slate_size"].get<int64_t>();
    }
    if (config.contains("prune_seeds")) {
      check_data(config["prune_seeds"].is_string(), config_path, "prune_seeds",
                 "expected a string");
      run.prune_seeds = config["prune_seeds"].get<std::string>();
    }
  }
  if (config.is_object() && config.value("model_type", "") == "xgboost") {
    xgb::XgbOptions options;
    check_data(config.contains("xgboost"), config_path, "xgboost", "missing");
    try {
      xgb::from_json(config["xgboost"], options);
    } catch (const Error& e) {
      throw Error(config_path, "", e.what());
    }
    const std::string model_path = (fs::path(run_dir) / "model.xgb").string();
    run.xgb = std::make_shared<const xgb::XgbRanker>(xgb::XgbRanker::load(model_path, options));
    return run;
  }
  const std::string model_path = (fs::path(run_dir) / "model.pt").string();
  if (!fs::exists(model_path)) throw Error(model_path, "", "no trained model (run `graphcost train` first)");
  run.ranker = model::load_model(model_path);
  return run;
}

std::vector<Run> load_runs(const std::vector<std::string>& run_dirs, std::string& collection) {
  std::vector<Run> runs;
  std::string first_dir;
  collection.clear();
  for (const std::string& dir : run_dirs) {
    runs.push_back(load_run(dir));
    const std::string& c = runs.back().collection;
    if (c.empty()) continue;
    if (collection.empty()) {
      collection = c;
      first_dir = dir;
    } else if (c != collection) {
      throw Error(dir, "collection", "trained on " + c + " but " + first_dir + " on " + collection +
                                         " (an ensemble needs one collection)");
    }
  }
  return runs;
}

void check_runs_kind(const std::vector<Run>& runs, const std::vector<std::string>& run_dirs,
                     const data::CollectionId& id) {
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].collection.empty()) continue;
    const data::CollectionId trained = data::CollectionId::parse(runs[r].collection);
    check_data(trained.kind == id.kind, run_dirs[r], "",
               "trained on " + trained.str() + ", but collection " + id.str() +
                   " was asked: its configurations are of another kind");
  }
}

void apply_run_pruning(const std::vector<Run>& runs, const std::vector<std::string>& run_dirs,
                       int prune_hops, data::LoadOptions& load) {
  if (runs.empty()) {  // a baseline: only an explicit --prune applies
    if (prune_hops != kRunPruning) load.prune_hops = prune_hops;
    return;
  }
  for (size_t r = 1; r < runs.size(); ++r) {
    check_data(runs[r].prune_hops == runs[0].prune_hops &&
                   runs[r].prune_seeds == runs[0].prune_seeds,
               run_dirs[r], "prune_hops",
               "pruned differently from " + run_dirs[0] + " (an ensemble scores one pruned copy)");
  }
  load.prune_hops = prune_hops == kRunPruning ? runs[0].prune_hops : prune_hops;
  load.prune_seed_opcodes = data::parse_prune_seeds(runs[0].prune_seeds);
}

CLI::Option* add_run_options(CLI::App* cmd, std::vector<std::string>& run_dirs,
                             std::string& ensemble, int64_t& tta, int64_t& anchors) {
  CLI::Option* model =
      cmd->add_option("--model", run_dirs,
                      "a training run folder (model.pt or model.xgb); repeat for an ensemble")
          ->expected(1)
          ->take_all();
  cmd->add_option("--ensemble", ensemble,
                  "how an ensemble's scores are combined: mean (of per-graph standardised "
                  "scores) or rank (mean reciprocal rank)")
      ->check(CLI::IsMember({"mean", "rank"}))
      ->capture_default_str();
  cmd->add_option("--tta", tta,
                  "average each score over this many seeded random slate groupings (0 = off)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--anchors", anchors,
                  "attention models: score every configuration in its own slate with the same K "
                  "anchor configurations (a seeded sample of the scored ones), so scores compare "
                  "across slates; deterministic, one pass. Default: the run's training slate "
                  "size - 1 unless --tta or --mc-samples is given; 0 = off (slates of "
                  "--slate-size)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  return model;
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

// One run's scores of one graph; adds its MC-dropout spread to *spread when asked.
// A neural run reads the graph with its own node-input options, and by segments when it was
// trained that way (docs/gst.md).
std::vector<double> run_scores(const Scorer& scorer, Run& run, const data::Graph& graph,
                               int64_t g, const data::ConfigView& configs,
                               const std::vector<int64_t>& indices, std::vector<double>* spread) {
  if (run.xgb) return run.xgb->score(graph, configs, indices);
  const model::ModelOptions& options = run.ranker->options();
  const model::GraphTensors tensors =
      model::make_graph_tensors(graph, model::graph_feature_options(options));
  const auto segments = model::segments_for_model(graph, options);
  int64_t anchors = scorer.anchors;
  if (anchors == kAutoAnchors) {
    const bool automatic = options.attention && options.head == "score" && run.slate_size > 1 &&
                           scorer.tta == 0 && scorer.mc_samples == 0 && !segments;
    anchors = automatic ? run.slate_size - 1 : 0;
  }
  const int options_set = (scorer.tta > 0) + (scorer.mc_samples > 0) + (anchors > 0);
  const char* option = scorer.tta > 0 ? "--tta" : anchors > 0 ? "--anchors" : "--mc-samples";
  check_data(options_set <= 1, "scoring", option,
             "--tta, --anchors and --mc-samples cannot be combined");
  check_data(options_set == 0 || !segments, "scoring", option,
             "does not apply to a model trained by segments (GST)");
  check_data(anchors == 0 || !options.attention || options.head == "score", "scoring",
             "--anchors",
             "needs the score head (this attention model has head " + options.head + ")");
  if (anchors > 0 && options.attention) {
    return model::score_configs_anchored(run.ranker, tensors, configs, indices, scorer.slate_size,
                                         anchors, splitmix64_mix(scorer.seed) + g);
  }
  if (scorer.tta > 0) {
    return model::score_configs_tta(run.ranker, tensors, configs, indices, scorer.slate_size,
                                    scorer.tta, splitmix64_mix(scorer.seed) + g);
  }
  if (scorer.mc_samples > 0) {
    model::ScoreStats stats = model::mc_dropout_scores(run.ranker, tensors, configs, indices,
                                                       scorer.mc_samples, scorer.seed, scorer.slate_size);
    if (spread) {
      for (size_t i = 0; i < stats.std.size(); ++i) (*spread)[i] += stats.std[i];
    }
    return std::move(stats.mean);
  }
  return model::score_configs(run.ranker, tensors, configs, indices, scorer.slate_size,
                              segments.get());
}

}  // namespace

std::vector<eval::GraphScores> score_collection(const Scorer& scorer, const data::Collection& c,
                                                int64_t max_configs,
                                                std::vector<std::vector<double>>* spreads) {
  if (!scorer.runs.empty()) eval::check_ensemble_method(scorer.ensemble);
  int64_t neural_runs = 0;
  for (const Run* run : scorer.runs) neural_runs += run->xgb ? 0 : 1;
  const int64_t graphs = c.size();
  // Across processes each rank scores the graphs it owns (every rank draws every graph's sample,
  // so the samples are those of one process) and the scores are gathered at the end.
  dist::Group* group = scorer.runs.empty() ? nullptr : scorer.group;
  check_data(!group || scorer.mc_samples == 0, "distributed scoring", "--mc-samples",
             "cannot be shared out across processes: its dropout draws come from one generator in "
             "graph order (run it in one process)");
  auto mine = [&](int64_t g) { return !group || group->owner(g) == group->rank(); };
  int64_t owned_graphs = 0;
  for (int64_t g = 0; g < graphs; ++g) owned_graphs += mine(g) ? 1 : 0;
  // Which runs score the graphs apart, one per core, and which on the calling thread (below).
  std::vector<size_t> apart, in_order;
  for (size_t r = 0; r < scorer.runs.size(); ++r)
    (scorer.runs[r]->xgb || scorer.mc_samples > 0 ? in_order : apart).push_back(r);
  // A mixed ensemble passes over the graphs twice; the progress line counts both passes.
  const bool two_passes = !apart.empty() && !in_order.empty();
  Progress progress("score", two_passes ? 2 * owned_graphs : owned_graphs,
                    two_passes ? "graph passes" : "graphs");
  Random random(scorer.seed);
  // The configurations of graph g: all, or a seeded sample, drawn in graph order.
  std::vector<std::vector<int64_t>> indices(static_cast<size_t>(graphs));
  auto choose = [&](int64_t g) {
    std::vector<int64_t>& chosen = indices[g];
    chosen.resize(static_cast<size_t>(c.configs(g).count));
    std::iota(chosen.begin(), chosen.end(), 0);
    if (max_configs > 0 && static_cast<int64_t>(chosen.size()) > max_configs) {
      random.shuffle(chosen);
      chosen.resize(max_configs);
      std::sort(chosen.begin(), chosen.end());
    }
  };
  std::vector<eval::GraphScores> out(static_cast<size_t>(graphs));
  std::mutex progress_mutex;
  int64_t done = 0;
  int64_t total_configs = 0;
  // One pass over graph g is done; after the last pass its names and runtimes are filled in.
  auto describe = [&](int64_t g) {
    const data::ConfigView configs = c.configs(g);
    eval::GraphScores& scores = out[g];
    scores.name = c.graph(g).name;
    if (configs.has_runtimes()) {
      for (int64_t j : indices[g]) scores.measured.push_back(configs.runtimes[j]);
    }
  };
  auto pass_done = [&](int64_t g, bool last_pass) {
    if (last_pass) describe(g);
    std::lock_guard<std::mutex> lock(progress_mutex);
    if (last_pass) total_configs += static_cast<int64_t>(indices[g].size());
    progress.update(++done, std::to_string(total_configs) + " configs");
  };
  if (scorer.runs.empty()) {
    for (int64_t g = 0; g < graphs; ++g) {  // a baseline's draws follow each graph's sample
      choose(g);
      out[g].predicted = baseline_scores(scorer, c.configs(g), indices[g], random);
      pass_done(g, true);
    }
    progress.finish(std::to_string(total_configs) + " configs");
    return out;
  }
  // A neural run's scores of a graph depend on nothing but the run and the graph, and not on the
  // thread count, so the graphs are scored apart, one per core (model::run_on_workers), in eval
  // mode set once here. MC dropout stays on the calling thread (its draws come from one global
  // generator, in graph order) and so do XGBoost runs (which have threads of their own); they
  // score every graph after the others.
  for (int64_t g = 0; g < graphs; ++g) choose(g);
  const bool want_spread = spreads && scorer.mc_samples > 0;
  std::vector<std::vector<std::vector<double>>> per_run(
      static_cast<size_t>(graphs), std::vector<std::vector<double>>(scorer.runs.size()));
  std::vector<std::vector<double>> spread(static_cast<size_t>(graphs));  // MC dropout only
  if (want_spread) {
    for (int64_t g = 0; g < graphs; ++g) spread[g].assign(indices[g].size(), 0.0);
  }
  if (!apart.empty()) {
    std::vector<std::unique_ptr<model::RankerModeGuard>> eval_modes;
    for (size_t r : apart)
      eval_modes.push_back(
          std::make_unique<model::RankerModeGuard>(scorer.runs[r]->ranker, /*training=*/false));
    torch::NoGradGuard no_grad;
    model::run_on_workers(graphs, at::get_num_threads(), [&](int64_t g) {
      if (!mine(g)) return;
      const data::Graph& graph = c.graph(g);
      const data::ConfigView configs = c.configs(g);
      for (size_t r : apart)
        per_run[g][r] = run_scores(scorer, *scorer.runs[r], graph, g, configs, indices[g], nullptr);
      pass_done(g, in_order.empty());
    });
  }
  if (!in_order.empty()) {
    for (int64_t g = 0; g < graphs; ++g) {
      if (!mine(g)) continue;
      const data::Graph& graph = c.graph(g);
      const data::ConfigView configs = c.configs(g);
      for (size_t r : in_order)
        per_run[g][r] = run_scores(scorer, *scorer.runs[r], graph, g, configs, indices[g],
                                   want_spread ? &spread[g] : nullptr);
      pass_done(g, true);
    }
  }
  std::vector<std::vector<double>> predicted(static_cast<size_t>(graphs));
  for (int64_t g = 0; g < graphs; ++g) {
    if (mine(g)) predicted[g] = eval::combine_scores(per_run[g], scorer.ensemble);
    per_run[g].clear();
  }
  if (group) dist::share_rows(*group, predicted);
  for (int64_t g = 0; g < graphs; ++g) {
    out[g].predicted = std::move(predicted[g]);
    if (!mine(g)) describe(g);  // scored by another rank
    if (want_spread) {
      for (double& s : spread[g]) s /= static_cast<double>(std::max<int64_t>(1, neural_runs));
      spreads->push_back(std::move(spread[g]));
    }
  }
  progress.finish(std::to_string(total_configs) + " configs");
  return out;
}

}  // namespace graphcost::cli
