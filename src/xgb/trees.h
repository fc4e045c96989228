// Gradient-boosted trees on a dense float matrix through XGBoost's C API: a regressor or a
// classifier for callers that build their own rows (the tuning surrogate in src/tune), where
// xgb/ranker.h trains on a collection's graphs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace graphcost::xgb {

struct TreeOptions {
  std::string objective = "reg:squarederror";  // or "binary:logistic", ...
  int64_t rounds = 40;
  int64_t max_depth = 5;
  double eta = 0.3;
  double subsample = 1.0;
  double colsample = 1.0;         // colsample_bytree
  double min_child_weight = 1.0;
  uint64_t seed = 0;
  int threads = 1;
};

class GradientBoostedTrees {
 public:
  // Trains on rows (row-major, `width` columns, NaN = missing) and one label per row; weights
  // (one per row) may be empty; groups (query group sizes in row order, for rank objectives
  // such as rank:pairwise) may be empty, else they sum to the rows. No rows, mismatched sizes or
  // rounds < 1 are an Error.
  static GradientBoostedTrees train(const std::vector<float>& rows, int64_t width,
                                    const std::vector<float>& labels, const TreeOptions& options,
                                    const std::vector<float>& weights = {},
                                    const std::vector<unsigned>& groups = {});
  // Loads trees saved by save() for rows of `width` columns; a missing or malformed file is an
  // Error naming it.
  static GradientBoostedTrees load(const std::string& path, int64_t width, int threads);
  // Writes the booster (XGBoost's JSON model format) atomically.
  void save(const std::string& path) const;
  // One prediction per row (the objective's output: a value, or a probability for logistic).
  std::vector<double> predict(const std::vector<float>& rows) const;
  int64_t width() const { return width_; }

 private:
  struct Handle;
  GradientBoostedTrees(int64_t width, std::shared_ptr<Handle> handle);
  int64_t width_ = 0;
  std::shared_ptr<Handle> handle_;
};

}  // namespace graphcost::xgb
