#include "study/parzen.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

namespace graphcost::study {

namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;

double normal_cdf(double z) { return 0.5 * std::erfc(-z * kInvSqrt2); }

double standard_normal(graphcost::Random& random) {
  // Box-Muller; 1 - uniform() is in (0, 1], so the log is finite.
  const double u = 1.0 - random.uniform(), v = random.uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
}

double log_sum_exp(const std::vector<double>& terms) {
  const double top = *std::max_element(terms.begin(), terms.end());
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double t : terms) sum += std::exp(t - top);
  return top + std::log(sum);
}

bool stepped(const Parameter& p) { return p.step > 0; }

}  // namespace

ParzenEstimator::ParzenEstimator(std::vector<const Parameter*> parameters,
                                 const std::vector<std::vector<double>>& observations,
                                 double prior_weight, bool scott)
    : prior_weight_(prior_weight) {
  const size_t n = observations.size();
  for (size_t d = 0; d < parameters.size(); ++d) {
    Dimension dim;
    dim.parameter = parameters[d];
    for (const auto& observation : observations) dim.mus.push_back(observation[d]);
    if (dim.parameter->kind != Parameter::Kind::Categorical) {
      std::tie(dim.low, dim.high) = internal_range(*dim.parameter);
      const double range = dim.high - dim.low;
      const double prior_mu = 0.5 * (dim.low + dim.high);
      // Bandwidths from the neighbours in sorted order, the prior's centre included.
      std::vector<double> centres = dim.mus;
      centres.push_back(prior_mu);
      std::vector<size_t> order(centres.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return centres[a] < centres[b]; });
      dim.sigmas.assign(centres.size(), range);
      const double min_sigma = range / std::min(100.0, static_cast<double>(n) + 1.0);
      for (size_t k = 0; k < order.size(); ++k) {
        if (order[k] == n) continue;  // the prior keeps the whole range
        double gap = 0;
        if (k > 0) gap = std::max(gap, centres[order[k]] - centres[order[k - 1]]);
        if (k + 1 < order.size()) gap = std::max(gap, centres[order[k + 1]] - centres[order[k]]);
        if (scott)
          gap =
              0.2 * range *
              std::pow(static_cast<double>(n), -1.0 / (static_cast<double>(parameters.size()) + 4));
        dim.sigmas[order[k]] = std::clamp(gap, min_sigma, range);
      }
      dim.mus.push_back(prior_mu);
    }
    dimensions_.push_back(std::move(dim));
  }
  weights_.assign(n, 1.0);
  weights_.push_back(prior_weight);
  const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  for (double& w : weights_) {
    w /= total;
    log_weights_.push_back(std::log(w));
  }
}

double ParzenEstimator::log_kernel(const Dimension& d, size_t component, double x) const {
  const Parameter& p = *d.parameter;
  const size_t prior = weights_.size() - 1;
  if (p.kind == Parameter::Kind::Categorical) {
    const double k = static_cast<double>(p.choices.size());
    if (component == prior) return -std::log(k);
    const double hit = std::round(x) == d.mus[component] ? 1.0 : 0.0;
    return std::log((prior_weight_ / k + hit) / (prior_weight_ + 1.0));
  }
  const double mu = d.mus[component], sigma = d.sigmas[component];
  const double z_low = (d.low - mu) / sigma, z_high = (d.high - mu) / sigma;
  const double log_mass = std::log(std::max(normal_cdf(z_high) - normal_cdf(z_low), 1e-300));
  if (stepped(p)) {
    // The probability of the grid value's interval (half a step each side, before the log).
    const double v = p.log ? std::exp(x) : x;
    double a = v - p.step / 2, b = v + p.step / 2;
    if (p.log) a = std::log(a), b = std::log(b);
    const double mass = normal_cdf((b - mu) / sigma) - normal_cdf((a - mu) / sigma);
    return std::log(std::max(mass, 1e-300)) - log_mass;
  }
  const double z = (x - mu) / sigma;
  return -0.5 * z * z - std::log(sigma) - 0.5 * std::log(2.0 * M_PI) - log_mass;
}

double ParzenEstimator::log_density(const std::vector<double>& x) const {
  assert(x.size() == dimensions_.size());
  std::vector<double> terms(weights_.size());
  for (size_t c = 0; c < weights_.size(); ++c) {
    terms[c] = log_weights_[c];
    for (size_t d = 0; d < dimensions_.size(); ++d) terms[c] += log_kernel(dimensions_[d], c, x[d]);
  }
  return log_sum_exp(terms);
}

std::vector<double> ParzenEstimator::sample(graphcost::Random& random) const {
  // The component, by weight.
  double u = random.uniform();
  size_t c = 0;
  while (c + 1 < weights_.size() && u >= weights_[c]) u -= weights_[c++];
  const size_t prior = weights_.size() - 1;
  std::vector<double> x;
  for (const Dimension& d : dimensions_) {
    const Parameter& p = *d.parameter;
    if (p.kind == Parameter::Kind::Categorical) {
      const size_t k = p.choices.size();
      if (c == prior) {
        x.push_back(static_cast<double>(random.below(k)));
        continue;
      }
      // The observed choice with probability (1 + w/K) / (1 + w), else uniform.
      const double keep = 1.0 / (prior_weight_ + 1.0);
      x.push_back(random.uniform() < keep ? d.mus[c] : static_cast<double>(random.below(k)));
      continue;
    }
    // Truncated Gaussian by rejection: the centre lies in the range and the bandwidth is at
    // least 1/100 of it, so at least about half of the draws land inside.
    double value = d.low + random.uniform() * (d.high - d.low);
    for (int tries = 0; tries < 200; ++tries) {
      const double draw = d.mus[c] + d.sigmas[c] * standard_normal(random);
      if (draw >= d.low && draw <= d.high) {
        value = draw;
        break;
      }
    }
    // Onto the step grid (and the parameter's bounds), back in internal coordinates.
    x.push_back(*internal_value(p, value_of_internal(p, value)));
  }
  return x;
}

}  // namespace graphcost::study
