#include "stack/meta_learner.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/random.h"
#include "eval/ensemble.h"
#include "stack/folds.h"
#include "stack/ridge.h"
#include "xgb/ranker.h"

namespace graphcost::stack {

namespace {

// Ridge's lambda per row of the fit (so one setting means the same on 10 graphs or 1,000).
const std::vector<double> kRidgeLambdas = {0.001, 0.01, 0.1, 1.0, 10.0};
// XGBoost's (rounds, max_depth), eta 0.1: a few members give a few columns, so shallow trees.
const std::vector<std::pair<int64_t, int64_t>> kXgbSettings = {{50, 2}, {100, 3}, {200, 4}};

std::vector<nlohmann::json> candidate_settings(const std::string& meta) {
  std::vector<nlohmann::json> out;
  if (meta == "ridge") {
    for (double lambda : kRidgeLambdas) out.push_back({{"lambda_per_row", lambda}});
  } else {
    for (const auto& [rounds, depth] : kXgbSettings)
      out.push_back({{"rounds", rounds}, {"max_depth", depth}, {"eta", 0.1}});
  }
  return out;
}

// The ridge target: log runtime standardised within the graph (a cost, like the features).
std::vector<double> ridge_target(const StackGraph& graph) {
  std::vector<double> logs;
  for (double r : graph.runtimes) logs.push_back(std::log(r));
  return eval::standardise(logs);
}

xgb::TreeOptions tree_options(const nlohmann::json& setting, const MetaOptions& options) {
  xgb::TreeOptions trees;
  trees.objective = "rank:pairwise";
  trees.rounds = setting["rounds"].get<int64_t>();
  trees.max_depth = setting["max_depth"].get<int64_t>();
  trees.eta = setting["eta"].get<double>();
  trees.seed = options.seed;
  trees.threads = options.threads;
  return trees;
}

// The fitted parts of a meta-learner for one setting on the graphs `fit`.
struct Fitted {
  std::vector<double> weights;
  std::shared_ptr<const xgb::GradientBoostedTrees> trees;
};

Fitted fit_setting(const std::string& meta, const nlohmann::json& setting,
                   const std::vector<StackGraph>& graphs, const std::vector<int64_t>& fit,
                   int64_t width, const MetaOptions& options) {
  Fitted out;
  if (meta == "ridge") {
    std::vector<double> x, y;
    for (int64_t g : fit) {
      x.insert(x.end(), graphs[g].features.begin(), graphs[g].features.end());
      const std::vector<double> target = ridge_target(graphs[g]);
      y.insert(y.end(), target.begin(), target.end());
    }
    const double lambda = setting["lambda_per_row"].get<double>() * static_cast<double>(y.size());
    out.weights = fit_ridge(x, width, y, lambda);
    return out;
  }
  std::vector<float> rows, labels;
  std::vector<unsigned> groups;
  for (int64_t g : fit) {
    for (double v : graphs[g].features) rows.push_back(static_cast<float>(v));
    const std::vector<float> group_labels = xgb::relevance_labels(graphs[g].runtimes);
    labels.insert(labels.end(), group_labels.begin(), group_labels.end());
    groups.push_back(static_cast<unsigned>(graphs[g].runtimes.size()));
  }
  out.trees = std::make_shared<const xgb::GradientBoostedTrees>(xgb::GradientBoostedTrees::train(
      rows, width, labels, tree_options(setting, options), {}, groups));
  return out;
}

std::vector<double> score_with(const Fitted& fitted, const std::vector<double>& features) {
  if (!fitted.trees) return linear_scores(features, fitted.weights);
  const std::vector<float> rows(features.begin(), features.end());
  std::vector<double> costs = fitted.trees->predict(rows);
  for (double& c : costs) c = -c;  // rank:pairwise predicts relevance (higher = faster)
  return costs;
}

}  // namespace

std::vector<double> stack_features(const std::vector<std::vector<double>>& member_scores) {
  const size_t members = member_scores.size();
  const size_t configs = members == 0 ? 0 : member_scores[0].size();
  std::vector<double> features(configs * members);
  for (size_t m = 0; m < members; ++m) {
    check_data(member_scores[m].size() == configs, "stack", "members",
               "members scored different numbers of configurations");
    const std::vector<double> z = eval::standardise(member_scores[m]);
    for (size_t i = 0; i < configs; ++i) features[i * members + m] = z[i];
  }
  return features;
}

std::vector<StackGraph> split_configurations(const StackGraph& graph, int64_t pieces, int64_t width,
                                             uint64_t seed) {
  const int64_t count = static_cast<int64_t>(graph.runtimes.size());
  check_data(pieces >= 2 && count >= 2 * pieces, graph.name, "configurations",
             std::to_string(count) + " configurations cannot be dealt into " +
                 std::to_string(pieces) +
                 " parts of at least 2 for cross-fitting (one graph: its configurations stand in "
                 "for graphs)");
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  Random random(seed);
  random.shuffle(order);
  std::vector<StackGraph> parts(static_cast<size_t>(pieces));
  for (int64_t k = 0; k < pieces; ++k) parts[k].name = graph.name + "#" + std::to_string(k);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t j = order[i];
    StackGraph& part = parts[i % pieces];
    part.features.insert(part.features.end(), graph.features.begin() + j * width,
                         graph.features.begin() + (j + 1) * width);
    part.runtimes.push_back(graph.runtimes[j]);
  }
  return parts;
}

const std::vector<std::string>& meta_learner_names() {
  static const std::vector<std::string> names = {"ridge", "xgboost"};
  return names;
}

MetaLearner MetaLearner::fit(const std::vector<StackGraph>& graphs, int64_t width,
                             const MetaOptions& options) {
  check_data(options.meta == "ridge" || options.meta == "xgboost", "stack", "--meta",
             "unknown meta-learner '" + options.meta + "' (valid: ridge, xgboost)");
  check_data(width >= 1, "stack", "members", "no member scores to stack");
  for (const StackGraph& g : graphs) {
    check_data(g.features.size() == g.runtimes.size() * static_cast<size_t>(width), g.name,
               "features", "not one row of member scores per configuration");
    for (double r : g.runtimes)
      check_data(r > 0 && std::isfinite(r), g.name, "runtimes",
                 "a runtime that is not a positive number");
  }
  const std::vector<int64_t> folds =
      graph_folds(static_cast<int64_t>(graphs.size()), std::min<int64_t>(options.folds, graphs.size()),
                  options.seed);
  std::vector<std::vector<double>> measured;
  for (const StackGraph& g : graphs) measured.push_back(g.runtimes);
  const std::vector<nlohmann::json> settings = candidate_settings(options.meta);
  const std::vector<double> taus = stack::cross_fit(
      measured, folds, settings.size(),
      [&](size_t c, const std::vector<int64_t>& fit, const std::vector<int64_t>& held) {
        const Fitted fitted = fit_setting(options.meta, settings[c], graphs, fit, width, options);
        std::vector<std::vector<double>> scores;
        for (int64_t g : held) scores.push_back(score_with(fitted, graphs[g].features));
        return scores;
      });
  MetaLearner out;
  out.meta_ = options.meta;
  out.width_ = width;
  size_t best = 0;
  for (size_t c = 0; c < settings.size(); ++c) {
    out.cross_fit_.push_back({settings[c], taus[c]});
    // The first of equal taus: the strongest ridge penalty is last, the smallest forest first.
    if (!std::isnan(taus[c]) && (std::isnan(taus[best]) || taus[c] > taus[best])) best = c;
  }
  out.setting_ = settings[best];
  std::vector<int64_t> all(graphs.size());
  for (size_t g = 0; g < graphs.size(); ++g) all[g] = static_cast<int64_t>(g);
  Fitted fitted = fit_setting(options.meta, out.setting_, graphs, all, width, options);
  out.weights_ = std::move(fitted.weights);
  out.trees_ = std::move(fitted.trees);
  return out;
}

std::vector<double> MetaLearner::score(const std::vector<double>& features) const {
  check_data(features.size() % static_cast<size_t>(width_) == 0, "stack", "features",
             "not a whole number of rows of " + std::to_string(width_) + " member scores");
  return score_with({weights_, trees_}, features);
}

nlohmann::json MetaLearner::to_json() const {
  nlohmann::json cross = nlohmann::json::array();
  for (const CandidateResult& c : cross_fit_)
    cross.push_back({{"setting", c.setting},
                     {"tau", std::isnan(c.tau) ? nlohmann::json(nullptr) : nlohmann::json(c.tau)}});
  nlohmann::json j = {{"meta", meta_}, {"members_width", width_}, {"setting", setting_},
                      {"cross_fit", cross}};
  if (meta_ == "ridge") j["weights"] = weights_;
  return j;
}

void MetaLearner::save_model(const std::string& path) const {
  if (trees_) trees_->save(path);
}

MetaLearner MetaLearner::load(const nlohmann::json& j, const std::string& model_path,
                              const std::string& where, int threads) {
  check_data(j.is_object(), where, "stack", "expected an object");
  check_data(j.contains("meta") && j["meta"].is_string(), where, "stack.meta",
             "expected \"ridge\" or \"xgboost\"");
  MetaLearner out;
  out.meta_ = j["meta"].get<std::string>();
  check_data(out.meta_ == "ridge" || out.meta_ == "xgboost", where, "stack.meta",
             "unknown meta-learner '" + out.meta_ + "' (valid: ridge, xgboost)");
  check_data(j.contains("members_width") && j["members_width"].is_number_integer() &&
                 j["members_width"].get<int64_t>() >= 1,
             where, "stack.members_width", "expected a positive integer");
  out.width_ = j["members_width"].get<int64_t>();
  if (j.contains("setting")) out.setting_ = j["setting"];
  if (out.meta_ == "ridge") {
    const bool numbers =
        j.contains("weights") && j["weights"].is_array() &&
        j["weights"].size() == static_cast<size_t>(out.width_) &&
        std::all_of(j["weights"].begin(), j["weights"].end(),
                    [](const nlohmann::json& w) { return w.is_number(); });
    check_data(numbers, where, "stack.weights",
               "expected " + std::to_string(out.width_) + " numbers (one per member)");
    out.weights_ = j["weights"].get<std::vector<double>>();
  } else {
    out.trees_ = std::make_shared<const xgb::GradientBoostedTrees>(xgb::GradientBoostedTrees::load(
        model_path, out.width_, threads));
  }
  return out;
}

}  // namespace graphcost::stack
