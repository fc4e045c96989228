// The surrogate of Bayesian-optimisation search: feature rows for configurations, a bagged
// ensemble of gradient-boosted trees whose spread is the uncertainty (scaled on out-of-bag
// points so that its intervals hold what they claim), and expected improvement.
#pragma once

#include <cstdint>
#include <vector>

#include "tune/search_space.h"
#include "xgb/trees.h"

namespace graphcost::tune {

// One row per configuration of `space`, in the parameters of `reference` (the target's space;
// pass space itself for the target): a parameter's numeric value where its label is a number,
// else the index of the label among the reference's labels; NaN (missing) where `space` lacks
// the parameter or the reference the label. Row-major [space.count, reference parameters].
std::vector<float> parameter_rows(const SearchSpace& space, const SearchSpace& reference);

struct EnsembleOptions {
  int64_t members = 5;  // bootstrap replicas, one tree model each
  xgb::TreeOptions trees{"reg:squarederror", 30, 5, 0.3, 1.0, 0.8, 1.0, 0, 1};
  bool calibrate = false;  // scale the spread by out-of-bag residuals
};

// Bagged regressors: each member is trained on a bootstrap replica of the rows; a prediction's
// mean and standard deviation are over the members. With calibrate, the deviation is multiplied
// by sqrt(mean z^2) of the out-of-bag points (z = residual of the members that did not see the
// point over their spread), so that a nominal interval covers about its share.
class BaggedTrees {
 public:
  // Needs at least 2 rows. seed fixes the bootstrap replicas and the trees.
  void fit(const std::vector<float>& rows, int64_t width, const std::vector<float>& labels,
           const EnsembleOptions& options, uint64_t seed);
  bool fitted() const { return !members_.empty(); }
  // Mean and standard deviation per row.
  void predict(const std::vector<float>& rows, std::vector<double>* mean,
               std::vector<double>* std) const;
  double spread_scale() const { return scale_; }

 private:
  std::vector<xgb::GradientBoostedTrees> members_;
  double scale_ = 1.0;
};

// Expected improvement of a cost below `best` under a normal belief (mean, std); std <= 0 gives
// max(0, best - mean).
double expected_improvement(double mean, double std, double best);

// The standard normal quantile: z with Phi(z) = p, for p in (0, 1) (bisection on erfc, to
// double precision).
double normal_quantile(double p);

// The normal scores of values' ranks (lowest first; ties share their mean rank): the
// quantile of (rank + 0.5) / n, so n values map onto a standard normal's spread whatever their
// own; what the surrogate learns under bo's --warp rank.
std::vector<float> normal_scores(const std::vector<float>& values);

// Share of points whose truth lies in mean +- z * std (z = 1.645: a nominal 90% interval).
double interval_coverage(const std::vector<double>& mean, const std::vector<double>& std,
                         const std::vector<double>& truth, double z);

}  // namespace graphcost::tune
