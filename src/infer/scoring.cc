// Scoring strategies and the per-graph workers. Every caller (eval, predict, training's
// validation, tune) reaches a neural model through score_neural, so a strategy is written once.
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <numeric>

#include "core/error.h"
#include "core/progress.h"
#include "core/random.h"
#include "dist/collectives.h"
#include "eval/ensemble.h"
#include "infer/scoring.h"
#include "infer/stack.h"
#include "model/forward/graph_tensors.h"
#include "model/kernels/threads.h"
#include "model/scoring/predict.h"
#include "model/scoring/tta.h"
#include "model/scoring/uncertainty.h"

namespace graphcost::infer {

int64_t default_anchors(const model::ModelOptions& options, int64_t training_slate_size,
                        bool segmented) {
  const bool anchored = options.attention && options.head == "score" && training_slate_size > 1 &&
                        !segmented;
  return anchored ? training_slate_size - 1 : 0;
}

std::vector<double> score_neural(model::Ranker& ranker, const model::GraphTensors& tensors,
                                 const model::SegmentedGraph* segments,
                                 const data::ConfigView& configs,
                                 const std::vector<int64_t>& indices, const NeuralScoring& how,
                                 std::vector<double>* spread) {
  if (how.anchors > 0 && ranker->options().attention) {
    return model::score_configs_anchored(ranker, tensors, configs, indices, how.slate_size,
                                         how.anchors, how.stream_seed);
  }
  if (how.tta > 0) {
    return model::score_configs_tta(ranker, tensors, configs, indices, how.slate_size, how.tta,
                                    how.stream_seed);
  }
  if (how.mc_samples > 0) {
    model::ScoreStats stats = model::mc_dropout_scores(ranker, tensors, configs, indices,
                                                       how.mc_samples, how.mc_seed, how.slate_size);
    if (spread) {
      for (size_t i = 0; i < stats.std.size(); ++i) (*spread)[i] += stats.std[i];
    }
    return std::move(stats.mean);
  }
  return model::score_configs(ranker, tensors, configs, indices, how.slate_size, segments);
}

std::pair<std::vector<double>, std::vector<double>> mc_dropout_in_slates(
    model::Ranker& ranker, const model::GraphTensors& graph, const data::ConfigView& configs,
    const std::vector<int64_t>& config_indices, int64_t samples, int64_t slate_size) {
  check_data(slate_size >= 1, "tune", "slate_size", "must be positive");
  check_data(samples >= 1, "tune", "--mc-samples", "must be at least 1");
  const size_t n = config_indices.size();
  std::vector<double> sum(n, 0.0), sum_squares(n, 0.0);
  model::RankerModeGuard dropout_on(ranker, /*training=*/true);
  // One forward replaces `samples`. Autograd stays on (results detached) because the ranker
  // splits gradient-free slates into chunks of 16 configurations, which for one-node graphs
  // costs far more than recording.
  const int64_t per_chunk = std::max<int64_t>(1, slate_size / samples);
  for (size_t start = 0; start < n; start += per_chunk) {
    const size_t end = std::min(n, start + static_cast<size_t>(per_chunk));
    std::vector<int64_t> chunk;
    for (int64_t k = 0; k < samples; ++k)
      chunk.insert(chunk.end(), config_indices.begin() + start, config_indices.begin() + end);
    const model::Slate slate = model::make_slate(graph, configs, chunk);
    const torch::Tensor out = ranker->forward(slate).detach().to(torch::kFloat64).contiguous();
    const double* p = out.data_ptr<double>();
    const size_t width = end - start;
    for (int64_t k = 0; k < samples; ++k) {
      for (size_t i = 0; i < width; ++i) {
        const double v = p[k * width + i];
        sum[start + i] += v;
        sum_squares[start + i] += v * v;
      }
    }
  }
  std::vector<double> mean(n), std(n);
  for (size_t i = 0; i < n; ++i) {
    mean[i] = sum[i] / samples;
    std[i] = std::sqrt(std::max(0.0, sum_squares[i] / samples - mean[i] * mean[i]));
  }
  return {mean, std};
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
// trained that way (docs/gst.md). The strategy: the scorer's --tta, --anchors or --mc-samples
// (one at most), else anchors for attention models (default_anchors), else plain slates.
// Graph g's streams are stream_base + g; `ready` holds the graph's tensors when they are at hand.
std::vector<double> run_scores(const Scorer& scorer, TrainedModel& run, const data::Graph& graph,
                               int64_t g, const data::ConfigView& configs,
                               const std::vector<int64_t>& indices, std::vector<double>* spread,
                               uint64_t stream_base, const model::GraphTensors* ready = nullptr) {
  if (run.xgb) return run.xgb->score(graph, configs, indices);
  if (run.stack) {
    // Each member as it scores alone (the scorer's options, the graph's stream), then the
    // meta-learner over their scores. Neural members in eval mode and without gradients here:
    // a stack scores on the calling thread (scores_apart).
    std::vector<std::vector<double>> member_scores;
    for (TrainedModel& member : run.stack->members) {
      std::unique_ptr<model::RankerModeGuard> mode;
      std::unique_ptr<torch::NoGradGuard> no_grad;
      if (member.ranker && scorer.mc_samples == 0) {
        mode = std::make_unique<model::RankerModeGuard>(member.ranker, /*training=*/false);
        no_grad = std::make_unique<torch::NoGradGuard>();
      }
      member_scores.push_back(
          run_scores(scorer, member, graph, g, configs, indices, nullptr, stream_base));
    }
    return stack_scores(*run.stack, member_scores, graph.name, configs, indices);
  }
  const model::ModelOptions& options = run.ranker->options();
  std::optional<model::GraphTensors> built;
  if (!ready) built = model::make_graph_tensors(graph, model::graph_feature_options(options));
  const model::GraphTensors& tensors = ready ? *ready : *built;
  const auto segments = model::segments_for_model(graph, options);
  int64_t anchors = scorer.anchors;
  if (anchors == kAutoAnchors) {
    const bool asked_other = scorer.tta > 0 || scorer.mc_samples > 0;
    anchors = asked_other ? 0 : default_anchors(options, run.slate_size, segments != nullptr);
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
  NeuralScoring how;
  how.slate_size = scorer.slate_size;
  how.anchors = anchors;
  how.tta = scorer.tta;
  how.mc_samples = scorer.mc_samples;
  how.stream_seed = stream_base + static_cast<uint64_t>(g);
  how.mc_seed = scorer.seed;
  return score_neural(run.ranker, tensors, segments.get(), configs, indices, how, spread);
}

// A neural run scores the graphs apart, one per core, unless it scores by MC dropout (draws from
// one global generator, in graph order). XGBoost runs have threads of their own, and so do a
// stack's XGBoost members; a stack scores its neural members in eval mode set per graph.
bool scores_apart(const Scorer& scorer, const TrainedModel& run) {
  return run.ranker && scorer.mc_samples == 0;
}

// The runs' scores of one graph combined into one, as scorer.ensemble says.
std::vector<double> combine(const Scorer& scorer, const std::vector<std::vector<double>>& per_run) {
  return eval::combine_scores(per_run, scorer.ensemble);
}

int64_t neural_run_count(const Scorer& scorer) {
  int64_t count = 0;
  for (const TrainedModel* run : scorer.runs) count += run->ranker ? 1 : 0;
  return count;
}

// Runs that score apart are put in eval mode (and restored) for the guard's lifetime.
std::vector<std::unique_ptr<model::RankerModeGuard>> eval_mode_for(const Scorer& scorer,
                                                                   const std::vector<size_t>& runs) {
  std::vector<std::unique_ptr<model::RankerModeGuard>> guards;
  for (size_t r : runs)
    guards.push_back(
        std::make_unique<model::RankerModeGuard>(scorer.runs[r]->ranker, /*training=*/false));
  return guards;
}

// The configurations of graph g (of `count`) that `what` scores: its list, or all, or a seeded
// sample of max_configs drawn from `random` (graph after graph, in order).
std::vector<int64_t> chosen_configs(const CollectionScoring& what, int64_t count, int64_t g,
                                    Random& random) {
  if (what.chosen) return (*what.chosen)[g];
  std::vector<int64_t> chosen(static_cast<size_t>(count));
  std::iota(chosen.begin(), chosen.end(), 0);
  if (what.max_configs > 0 && count > what.max_configs) {
    random.shuffle(chosen);
    chosen.resize(what.max_configs);
    std::sort(chosen.begin(), chosen.end());
  }
  return chosen;
}

}  // namespace

GraphScoring score_graph(const Scorer& scorer, const data::Graph& graph,
                         const data::ConfigView& configs, const std::vector<int64_t>& listed,
                         int64_t stream) {
  std::vector<int64_t> indices = model::listed_or_all(listed, configs.count);
  GraphScoring out;
  if (scorer.runs.empty()) {
    Random random(scorer.seed);
    out.scores = baseline_scores(scorer, configs, indices, random);
    return out;
  }
  eval::check_ensemble_method(scorer.ensemble);
  for (const TrainedModel* run : scorer.runs) check_run_fits(*run, graph, configs, graph.name);
  std::vector<size_t> apart;
  for (size_t r = 0; r < scorer.runs.size(); ++r)
    if (scores_apart(scorer, *scorer.runs[r])) apart.push_back(r);
  const auto eval_modes = eval_mode_for(scorer, apart);
  const bool want_spread = scorer.mc_samples > 0;
  if (want_spread) out.spread.assign(indices.size(), 0.0);
  std::vector<std::vector<double>> per_run(scorer.runs.size());
  for (size_t r = 0; r < scorer.runs.size(); ++r) {
    std::unique_ptr<torch::NoGradGuard> no_grad;
    if (scores_apart(scorer, *scorer.runs[r])) no_grad = std::make_unique<torch::NoGradGuard>();
    per_run[r] = run_scores(scorer, *scorer.runs[r], graph, stream, configs, indices,
                            want_spread ? &out.spread : nullptr, splitmix64_mix(scorer.seed));
  }
  out.scores = combine(scorer, per_run);
  const double neural = static_cast<double>(std::max<int64_t>(1, neural_run_count(scorer)));
  for (double& s : out.spread) s /= neural;
  return out;
}

std::vector<eval::GraphScores> score_collection(const Scorer& scorer, const data::Collection& c,
                                                const CollectionScoring& what,
                                                std::vector<std::vector<double>>* spreads) {
  const uint64_t stream_base = what.stream_base.value_or(splitmix64_mix(scorer.seed));
  // A graph given no configurations is not scored.
  auto scored = [&](int64_t g) { return !what.chosen || !(*what.chosen)[g].empty(); };
  if (!scorer.runs.empty()) eval::check_ensemble_method(scorer.ensemble);
  const int64_t graphs = c.size();
  // Before anything is scored: data the runs cannot read is one line naming its file. A
  // collection's graphs share their widths (io/collection_readers.cc), so the first tells.
  if (graphs > 0)
    for (const TrainedModel* run : scorer.runs) check_run_fits(*run, c.graph(0), c.configs(0), c.source(0));
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
    (scores_apart(scorer, *scorer.runs[r]) ? apart : in_order).push_back(r);
  // A mixed ensemble passes over the graphs twice; the progress line counts both passes.
  const bool two_passes = !apart.empty() && !in_order.empty();
  std::optional<Progress> progress;
  if (what.progress)
    progress.emplace("score", two_passes ? 2 * owned_graphs : owned_graphs,
                     two_passes ? "graph passes" : "graphs");
  Random random(scorer.seed);
  std::vector<std::vector<int64_t>> indices(static_cast<size_t>(graphs));
  auto choose = [&](int64_t g) { indices[g] = chosen_configs(what, c.configs(g).count, g, random); };
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
    ++done;
    if (progress) progress->update(done, std::to_string(total_configs) + " configs");
  };
  if (scorer.runs.empty()) {
    for (int64_t g = 0; g < graphs; ++g) {  // a baseline's draws follow each graph's sample
      choose(g);
      out[g].predicted = baseline_scores(scorer, c.configs(g), indices[g], random);
      pass_done(g, true);
    }
    if (progress) progress->finish(std::to_string(total_configs) + " configs");
    return out;
  }
  // A neural run's scores of a graph depend on nothing but the run and the graph, and not on the
  // thread count, so the graphs are scored apart, one per core (model::run_apart), in eval
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
    const auto eval_modes = eval_mode_for(scorer, apart);
    torch::NoGradGuard no_grad;
    model::run_apart(graphs, at::get_num_threads(), [&](int64_t g) {
      if (!mine(g) || !scored(g)) return;
      const data::Graph& graph = c.graph(g);
      const model::GraphTensors* ready = what.tensors ? &what.tensors(g) : nullptr;
      const data::ConfigView configs = c.configs(g);
      for (size_t r : apart)
        per_run[g][r] = run_scores(scorer, *scorer.runs[r], graph, g, configs, indices[g], nullptr,
                                   stream_base, ready);
      pass_done(g, in_order.empty());
    });
  }
  if (!in_order.empty()) {
    for (int64_t g = 0; g < graphs; ++g) {
      if (!mine(g) || !scored(g)) continue;
      const data::Graph& graph = c.graph(g);
      const data::ConfigView configs = c.configs(g);
      for (size_t r : in_order)
        per_run[g][r] = run_scores(scorer, *scorer.runs[r], graph, g, configs, indices[g],
                                   want_spread ? &spread[g] : nullptr, stream_base);
      pass_done(g, true);
    }
  }
  const double neural = static_cast<double>(std::max<int64_t>(1, neural_run_count(scorer)));
  std::vector<std::vector<double>> predicted(static_cast<size_t>(graphs));
  for (int64_t g = 0; g < graphs; ++g) {
    if (mine(g) && scored(g)) predicted[g] = combine(scorer, per_run[g]);
    per_run[g].clear();
  }
  if (group) dist::all_gather_rows(*group, predicted);
  for (int64_t g = 0; g < graphs; ++g) {
    out[g].predicted = std::move(predicted[g]);
    if (!mine(g) || !scored(g)) describe(g);  // scored by another rank, or not at all
    if (want_spread) {
      for (double& s : spread[g]) s /= neural;
      spreads->push_back(std::move(spread[g]));
    }
  }
  if (progress) progress->finish(std::to_string(total_configs) + " configs");
  return out;
}

}  // namespace graphcost::infer
