// The Parzen estimator of TPE (study/tpe.h): a mixture over a group of parameters with one
// product-kernel component per observation plus one prior component. Works in the internal
// coordinates of study/space.h.
#pragma once

#include <cstddef>  // core/random.h uses size_t
#include <vector>

#include "core/random.h"
#include "study/space.h"

namespace graphcost::study {

class ParzenEstimator {
 public:
  // observations[i][d]: internal coordinate of parameters[d] in observation i. Numeric
  // dimensions get a Gaussian truncated to internal_range per observation, with the bandwidth
  // the larger distance to its sorted neighbours (the prior's centre among them) clipped to
  // [range / min(100, n + 1), range] (Bergstra et al. 2011; Watanabe 2023, "magic clip"), and a
  // prior Gaussian at the centre with the width of the range. Categorical dimensions get, per
  // observation, (prior_weight / K + [c = observed]) / (prior_weight + 1), and a uniform prior.
  // Observations weigh 1 each, the prior `prior_weight`.
  // With `scott`, numeric bandwidths follow Scott's rule for a d-dimensional product kernel
  // instead, 0.2 * range * n^(-1 / (d + 4)) for every observation (as Optuna's multivariate TPE,
  // which Watanabe 2023 studies), clipped the same way.
  ParzenEstimator(std::vector<const Parameter*> parameters,
                  const std::vector<std::vector<double>>& observations, double prior_weight,
                  bool scott = false);

  // A draw (internal coordinates, already on the step grid of stepped parameters).
  std::vector<double> sample(graphcost::Random& random) const;
  // log density of a point (a probability mass for stepped and categorical dimensions).
  double log_density(const std::vector<double>& x) const;

 private:
  struct Dimension {
    const Parameter* parameter;
    double low = 0, high = 0;    // internal range
    std::vector<double> mus;     // components' centres (numeric) or observed indices (categorical)
    std::vector<double> sigmas;  // numeric only; the last component is the prior
  };
  double log_kernel(const Dimension& d, size_t component, double x) const;
  std::vector<Dimension> dimensions_;
  std::vector<double> log_weights_;  // per component, the prior last
  std::vector<double> weights_;
  double prior_weight_;
};

}  // namespace graphcost::study
