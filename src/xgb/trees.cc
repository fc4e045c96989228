#include "xgb/trees.h"

#include <numeric>

#include "core/error.h"
#include "xgb/c_api_handles.h"

namespace graphcost::xgb {

namespace {
constexpr const char* kTreesWhere = "xgboost trees";
}

struct GradientBoostedTrees::Handle {
  detail::Booster booster;
  explicit Handle(const std::vector<DMatrixHandle>& cache) : booster(cache) {}
};

GradientBoostedTrees::GradientBoostedTrees(int64_t width, std::shared_ptr<Handle> handle)
    : width_(width), handle_(std::move(handle)) {}

GradientBoostedTrees GradientBoostedTrees::train(const std::vector<float>& rows, int64_t width,
                                                 const std::vector<float>& labels,
                                                 const TreeOptions& options,
                                                 const std::vector<float>& weights,
                                                 const std::vector<unsigned>& groups) {
  check_data(options.rounds >= 1, kTreesWhere, "rounds", "must be at least 1");
  check_data(width >= 1 && !labels.empty() && rows.size() == labels.size() * width, kTreesWhere,
             "rows", "need one row of " + std::to_string(width) + " values per label");
  check_data(weights.empty() || weights.size() == labels.size(), kTreesWhere, "weights",
             "need one weight per row");
  detail::Matrix matrix(rows, width);
  detail::check_call(XGDMatrixSetFloatInfo(matrix.get(), "label", labels.data(), labels.size()),
                     kTreesWhere, "label");
  if (!weights.empty()) {
    detail::check_call(
        XGDMatrixSetFloatInfo(matrix.get(), "weight", weights.data(), weights.size()), kTreesWhere,
        "weight");
  }
  if (!groups.empty()) {
    check_data(std::accumulate(groups.begin(), groups.end(), size_t{0}) == labels.size(),
               kTreesWhere, "groups", "group sizes must add up to the rows");
    detail::check_call(XGDMatrixSetUIntInfo(matrix.get(), "group", groups.data(), groups.size()),
                       kTreesWhere, "group");
  }
  auto handle = std::make_shared<Handle>(std::vector<DMatrixHandle>{matrix.get()});
  detail::Booster& b = handle->booster;
  b.set("objective", options.objective);
  b.set("max_depth", std::to_string(options.max_depth));
  b.set("eta", std::to_string(options.eta));
  b.set("subsample", std::to_string(options.subsample));
  b.set("colsample_bytree", std::to_string(options.colsample));
  b.set("min_child_weight", std::to_string(options.min_child_weight));
  b.set("seed", std::to_string(options.seed));
  b.set("nthread", std::to_string(options.threads));
  b.set("verbosity", "0");
  for (int64_t round = 0; round < options.rounds; ++round) {
    detail::check_call(XGBoosterUpdateOneIter(b.handle, static_cast<int>(round), matrix.get()),
                       kTreesWhere, "round " + std::to_string(round));
  }
  return GradientBoostedTrees(width, handle);
}

GradientBoostedTrees GradientBoostedTrees::load(const std::string& path, int64_t width,
                                                int threads) {
  auto handle = std::make_shared<Handle>(std::vector<DMatrixHandle>{});
  detail::load_booster(handle->booster.handle, path);
  handle->booster.set("nthread", std::to_string(threads));
  return GradientBoostedTrees(width, handle);
}

void GradientBoostedTrees::save(const std::string& path) const {
  detail::save_booster(handle_->booster.handle, path);
}

std::vector<double> GradientBoostedTrees::predict(const std::vector<float>& rows) const {
  check_data(rows.size() % width_ == 0, kTreesWhere, "rows",
             "not a whole number of rows of " + std::to_string(width_) + " values");
  if (rows.empty()) return {};
  detail::Matrix matrix(rows, width_);
  bst_ulong length = 0;
  const float* out = nullptr;
  detail::check_call(XGBoosterPredict(handle_->booster.handle, matrix.get(), 0, 0, 0, &length, &out),
                     kTreesWhere, "predict");
  check_data(length * width_ == rows.size(), kTreesWhere, "predict", "wrong number of predictions");
  return std::vector<double>(out, out + length);
}

}  // namespace graphcost::xgb
