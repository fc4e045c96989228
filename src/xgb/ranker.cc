#include "xgb/ranker.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/random.h"
#include "xgb/c_api_handles.h"

namespace graphcost::xgb {

namespace {

using detail::check_call;
using detail::Matrix;
constexpr const char* kXgbRankerWhere = "xgboost";

}  // namespace

std::vector<float> relevance_labels(const std::vector<double>& runtimes) {
  std::vector<double> sorted = runtimes;
  std::sort(sorted.begin(), sorted.end());
  std::vector<float> labels;
  for (double r : runtimes) {
    const auto slower = sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), r);
    labels.push_back(static_cast<float>(slower));
  }
  return labels;
}

struct XgbRanker::Booster : detail::Booster {};

XgbRanker::XgbRanker(XgbOptions options, std::shared_ptr<Booster> booster)
    : options_(std::move(options)), booster_(std::move(booster)) {}

XgbRanker XgbRanker::train(const data::Collection& collection, const XgbOptions& requested) {
  check_xgb_options(requested);
  XgbOptions options = requested;
  options.features.kind = collection.id().kind;
  options.features.node_feature_width = collection.node_feature_width();
  options.features.config_width = collection.config_width();
  const int64_t width = feature_width(options.features);
  std::vector<float> rows, labels;
  std::vector<unsigned> groups;
  for (int64_t g = 0; g < collection.size(); ++g) {
    const data::ConfigView configs = collection.configs(g);
    // As the sampler does: a training file without runtimes is an error, not silently left out.
    check_data(configs.has_runtimes(), collection.source(g), "",
               "no runtimes to train on (split " + collection.split() + ")");
    if (configs.count < 2) continue;
    std::vector<int64_t> indices(configs.count);
    std::iota(indices.begin(), indices.end(), 0);
    if (options.max_configs_per_graph > 0 && configs.count > options.max_configs_per_graph) {
      Random random = random_stream(options.seed, static_cast<uint64_t>(g));
      random.shuffle(indices);
      indices.resize(options.max_configs_per_graph);
      std::sort(indices.begin(), indices.end());
    }
    const std::vector<float> part = feature_rows(collection.graph(g), configs, indices, options.features);
    rows.insert(rows.end(), part.begin(), part.end());
    std::vector<double> runtimes;
    for (int64_t j : indices) runtimes.push_back(configs.runtimes[j]);
    const std::vector<float> group_labels = relevance_labels(runtimes);
    labels.insert(labels.end(), group_labels.begin(), group_labels.end());
    groups.push_back(static_cast<unsigned>(indices.size()));
  }
  check_data(!groups.empty(), kXgbRankerWhere, "data",
             "no graph with runtimes and at least 2 configurations to train on");
  Matrix matrix(rows, width);
  check_call(XGDMatrixSetFloatInfo(matrix.get(), "label", labels.data(), labels.size()), kXgbRankerWhere, "label");
  check_call(XGDMatrixSetUIntInfo(matrix.get(), "group", groups.data(), groups.size()), kXgbRankerWhere, "group");
  auto booster = std::make_shared<Booster>();
  DMatrixHandle handles[] = {matrix.get()};
  XGBoosterFree(booster->handle);
  check_call(XGBoosterCreate(handles, 1, &booster->handle), kXgbRankerWhere, "booster");
  booster->set("objective", options.objective);
  booster->set("max_depth", std::to_string(options.max_depth));
  booster->set("eta", std::to_string(options.eta));
  booster->set("subsample", std::to_string(options.subsample));
  booster->set("colsample_bytree", std::to_string(options.colsample));
  booster->set("seed", std::to_string(options.seed));
  booster->set("nthread", std::to_string(options.threads));
  booster->set("verbosity", "0");
  for (int64_t round = 0; round < options.rounds; ++round)
    check_call(XGBoosterUpdateOneIter(booster->handle, static_cast<int>(round), matrix.get()),
               kXgbRankerWhere, "round " + std::to_string(round));
  return XgbRanker(options, booster);
}

XgbRanker XgbRanker::load(const std::string& path, const XgbOptions& options) {
  auto booster = std::make_shared<Booster>();
  detail::load_booster(booster->handle, path);
  booster->set("nthread", std::to_string(options.threads));
  return XgbRanker(options, booster);
}

void XgbRanker::save(const std::string& path) const {
  detail::save_booster(booster_->handle, path);
}

std::vector<double> XgbRanker::score(const data::Graph& graph, const data::ConfigView& configs,
                                     const std::vector<int64_t>& config_indices) const {
  std::vector<int64_t> indices = config_indices;
  if (indices.empty()) {
    indices.resize(configs.count);
    std::iota(indices.begin(), indices.end(), 0);
  }
  if (indices.empty()) return {};
  const std::vector<float> rows = feature_rows(graph, configs, indices, options_.features);
  Matrix matrix(rows, feature_width(options_.features));
  bst_ulong length = 0;
  const float* predictions = nullptr;
  check_call(XGBoosterPredict(booster_->handle, matrix.get(), 0, 0, 0, &length, &predictions),
             graph.name, "predict");
  check_data(length == indices.size(), graph.name, "predict", "wrong number of predictions");
  // XGBoost predicts relevance (higher = better); a cost is its negation.
  std::vector<double> costs(length);
  for (bst_ulong i = 0; i < length; ++i) costs[i] = -static_cast<double>(predictions[i]);
  return costs;
}

}  // namespace graphcost::xgb
