#include "xgb/trees.h"

#include "core/error.h"
#include "xgb/c_api_handles.h"

namespace graphcost::xgb {

namespace {
constexpr const char* kWhere = "xgboost trees";
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
                                                 const std::vector<float>& weights) {
  check_data(options.rounds >= 1, kWhere, "rounds", "must be at least 1");
  check_data(width >= 1 && !labels.empty() && rows.size() == labels.size() * width, kWhere,
             "rows", "need one row of " + std::to_string(width) + " values per label");
  check_data(weights.empty() || weights.size() == labels.size(), kWhere, "weights",
             "need one weight per row");
  detail::Matrix matrix(rows, width);
  detail::check_call(XGDMatrixSetFloatInfo(matrix.get(), "label", labels.data(), labels.size()),
                     kWhere, "label");
  if (!weights.empty()) {
    detail::check_call(
        XGDMatrixSetFloatInfo(matrix.get(), "weight", weights.data(), weights.size()), kWhere,
        "weight");
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
                       kWhere, "round " + std::to_string(round));
  }
  return GradientBoostedTrees(width, handle);
}

std::vector<double> GradientBoostedTrees::predict(const std::vector<float>& rows) const {
  check_data(rows.size() % width_ == 0, kWhere, "rows",
             "not a whole number of rows of " + std::to_string(width_) + " values");
  if (rows.empty()) return {};
  detail::Matrix matrix(rows, width_);
  bst_ulong length = 0;
  const float* out = nullptr;
  detail::check_call(XGBoosterPredict(handle_->booster.handle, matrix.get(), 0, 0, 0, &length, &out),
                     kWhere, "predict");
  check_data(length * width_ == rows.size(), kWhere, "predict", "wrong number of predictions");
  return std::vector<double>(out, out + length);
}

}  // namespace graphcost::xgb
