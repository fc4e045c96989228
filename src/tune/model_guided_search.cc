#include "tune/model_guided_search.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "core/error.h"
#include "infer/scoring.h"
#include "model/scoring/predict.h"
#include "run/run_folder.h"
#include "train/losses.h"

namespace graphcost::tune {

std::pair<std::vector<double>, std::vector<double>> tune_mc_scores(
    model::Ranker& ranker, const model::GraphTensors& graph, const data::ConfigView& configs,
    const std::vector<int64_t>& config_indices, int64_t samples, int64_t slate_size) {
  return infer::mc_dropout_in_slates(ranker, graph, configs, config_indices, samples, slate_size);
}

std::vector<double> lower_confidence_bound(const std::vector<double>& mean,
                                           const std::vector<double>& std, double kappa) {
  std::vector<double> out(mean.size());
  for (size_t i = 0; i < mean.size(); ++i) out[i] = mean[i] - kappa * std[i];
  return out;
}

model::Ranker load_pretrained_ranker(const std::string& path, int64_t node_feature_width,
                                     int64_t config_width, double dropout) {
  const std::string file = std::filesystem::is_directory(path)
                               ? run::RunFolder(path).model_path()
                               : path;
  model::Ranker loaded = infer::load_neural_model(path);
  model::ModelOptions options = loaded->options();
  check_data(options.kind == data::ConfigKind::Tile, file, "kind",
             "a layout model; tuning needs a tile model");
  check_data(options.node_feature_width == node_feature_width, file, "node_feature_width",
             std::to_string(options.node_feature_width) + ", but the records have " +
                 std::to_string(node_feature_width));
  check_data(options.config_width == config_width, file, "config_width",
             std::to_string(options.config_width) + ", but the records have " +
                 std::to_string(config_width));
  options.dropout = dropout;
  model::Ranker model(options);
  torch::NoGradGuard no_grad;
  const auto source = loaded->named_parameters();
  for (auto& item : model->named_parameters()) item.value().copy_(source[item.key()]);
  return model;
}

ModelGuidedStrategy::ModelGuidedStrategy(ModelGuidedOptions options, const data::Graph& graph,
                                         data::ConfigView configs)
    : options_(std::move(options)), configs_(configs) {
  check_data(options_.initial >= 1, "tune", "--initial", "must be at least 1");
  check_data(options_.dropout > 0 && options_.dropout < 1, "tune", "--dropout",
             "must be in (0, 1): MC dropout needs it");
  check_data(options_.train_steps >= 0, "tune", "--train-steps", "must not be negative");
  check_data(options_.lr > 0, "tune", "--lr", "must be positive");
  check_data(options_.slate_size >= 2, "tune", "--slate-size", "must be at least 2");
  check_data(options_.mc_samples >= 1, "tune", "--mc-samples", "must be at least 1");
  check_data(!options_.hidden.empty(), "tune", "--hidden", "needs at least one layer");
  model_options_.kind = data::ConfigKind::Tile;
  model_options_.node_feature_width = graph.feature_width;
  model_options_.config_width = configs.width;
  model_options_.hidden = options_.hidden;
  model_options_.dropout = options_.dropout;
  // A pretrained model reads the graph with the extra inputs it was trained with (random-walk
  // encodings, a virtual node, ...); loading it here also fails early on a bad file.
  model::GraphFeatureOptions features;
  if (!options_.pretrained.empty())
    features = model::graph_feature_options(make_model()->options());
  graph_ = model::make_graph_tensors(graph, features);
}

model::Ranker ModelGuidedStrategy::make_model() const {
  if (!options_.pretrained.empty()) {
    return load_pretrained_ranker(options_.pretrained, model_options_.node_feature_width,
                                  model_options_.config_width, options_.dropout);
  }
  return model::Ranker(model_options_);
}

void ModelGuidedStrategy::reset(const SearchSpace& space, uint64_t seed) {
  torch::manual_seed(seed);
  model_ = make_model();
  optimizer_ = std::make_unique<torch::optim::Adam>(model_->parameters(),
                                                    torch::optim::AdamOptions(options_.lr));
  rng_ = random_stream(seed, 3);
  random_order_.resize(space.count);
  std::iota(random_order_.begin(), random_order_.end(), 0);
  rng_.shuffle(random_order_);
}

void ModelGuidedStrategy::fit(const History& history) {
  // A failure ranks below every success: a stand-in of 10x the slowest time measured so far.
  double slowest = 0.0;
  for (const Measurement& m : history.measurements) {
    if (!m.failed) slowest = std::max(slowest, m.time);
  }
  const double stand_in = slowest > 0 ? 10.0 * slowest : 1.0;
  std::vector<int64_t> measured;
  std::vector<double> times;
  for (const Measurement& m : history.measurements) {
    measured.push_back(m.config);
    times.push_back(m.failed ? stand_in : m.time);
  }
  const train::ListMleLoss loss;
  model_->train();
  const size_t slate = std::min<size_t>(measured.size(), options_.slate_size);
  std::vector<size_t> order(measured.size());
  for (int64_t step = 0; step < options_.train_steps; ++step) {
    std::iota(order.begin(), order.end(), 0);
    for (size_t k = 0; k < slate; ++k) std::swap(order[k], order[k + rng_.below(order.size() - k)]);
    std::vector<int64_t> indices(slate);
    std::vector<double> slate_times(slate);
    for (size_t k = 0; k < slate; ++k) {
      indices[k] = measured[order[k]];
      slate_times[k] = times[order[k]];
    }
    model::Slate s = model::make_slate(graph_, configs_, indices);
    const torch::Tensor runtimes = torch::tensor(slate_times, torch::kFloat64);
    optimizer_->zero_grad();
    const torch::Tensor value = loss(model_->forward(s), runtimes);
    value.backward();
    optimizer_->step();
  }
}

std::vector<int64_t> ModelGuidedStrategy::propose(const SearchSpace&, const History& history,
                                                  int64_t count) {
  std::vector<int64_t> out;
  if (history.size() < options_.initial) {
    const int64_t want = std::min(count, options_.initial - history.size());
    for (int64_t j : random_order_) {
      if (static_cast<int64_t>(out.size()) == want) break;
      if (!history.is_measured(j)) out.push_back(j);
    }
    return out;
  }
  fit(history);
  std::vector<int64_t> candidates;
  for (int64_t j = 0; j < configs_.count; ++j) {
    if (!history.is_measured(j)) candidates.push_back(j);
  }
  const auto [mean, std] =
      tune_mc_scores(model_, graph_, configs_, candidates, options_.mc_samples);
  const std::vector<double> bound = lower_confidence_bound(mean, std, options_.kappa);
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t take = std::min<size_t>(order.size(), count);
  std::partial_sort(order.begin(), order.begin() + take, order.end(), [&](size_t a, size_t b) {
    return bound[a] < bound[b] || (bound[a] == bound[b] && a < b);
  });
  for (size_t k = 0; k < take; ++k) out.push_back(candidates[order[k]]);
  return out;
}

std::pair<std::vector<double>, std::vector<double>> ModelGuidedStrategy::score(
    const History& history, const std::vector<int64_t>& configs) {
  fit(history);
  return tune_mc_scores(model_, graph_, configs_, configs, options_.mc_samples);
}

}  // namespace graphcost::tune
