#include "study/importance.h"

#include <algorithm>
#include <cmath>

#include "study/parzen.h"

namespace graphcost::study {

namespace {

constexpr int kImportanceGridPoints = 50;

// The internal points a parameter's marginals are compared on.
std::vector<double> comparison_points(const Parameter& p) {
  std::vector<double> points;
  if (p.kind == Parameter::Kind::Categorical) {
    for (size_t i = 0; i < p.choices.size(); ++i) points.push_back(static_cast<double>(i));
    return points;
  }
  const auto [low, high] = internal_range(p);
  for (int k = 0; k < kImportanceGridPoints; ++k) {
    const double x = low + (high - low) * (k + 0.5) / kImportanceGridPoints;
    // Stepped parameters: the grid value nearest each point, each value once.
    const double point = p.step > 0 ? *internal_value(p, value_of_internal(p, x)) : x;
    if (points.empty() || points.back() != point) points.push_back(point);
  }
  return points;
}

std::vector<double> normalised_density(const ParzenEstimator& estimator,
                                       const std::vector<double>& points) {
  std::vector<double> density;
  double total = 0;
  for (double x : points) {
    density.push_back(std::exp(estimator.log_density({x})));
    total += density.back();
  }
  for (double& d : density) d /= total;
  return density;
}

}  // namespace

std::vector<std::pair<std::string, double>> parameter_importance(
    const SearchSpace& space, const std::vector<TrialRecord>& trials, bool maximize,
    const ImportanceOptions& options) {
  std::vector<const TrialRecord*> complete;
  for (const TrialRecord& t : trials)
    if (t.state == TrialState::Complete && t.value && std::isfinite(*t.value))
      complete.push_back(&t);
  std::stable_sort(complete.begin(), complete.end(), [&](const auto* a, const auto* b) {
    return maximize ? *a->value > *b->value : *a->value < *b->value;
  });
  const size_t top_count = std::max<size_t>(
      1, static_cast<size_t>(std::ceil(options.target_quantile * complete.size())));

  std::vector<std::pair<std::string, double>> importance;
  for (const Parameter& p : space.parameters) {
    std::vector<std::vector<double>> all, top;
    for (size_t r = 0; r < complete.size(); ++r) {
      const nlohmann::json& params = complete[r]->params;
      if (!params.is_object() || !params.contains(p.key)) continue;
      const std::optional<double> x = internal_value(p, params[p.key]);
      if (!x) continue;
      all.push_back({*x});
      if (r < top_count) top.push_back({*x});
    }
    double divergence = 0;
    if (complete.size() >= 2 && all.size() >= 2 && !top.empty()) {
      const std::vector<double> points = comparison_points(p);
      const std::vector<double> p_all = normalised_density(ParzenEstimator({&p}, all, 1.0), points);
      const std::vector<double> p_top = normalised_density(ParzenEstimator({&p}, top, 1.0), points);
      for (size_t k = 0; k < points.size(); ++k) {
        const double ratio = p_top[k] / p_all[k] - 1.0;
        divergence += p_all[k] * ratio * ratio;
      }
    }
    importance.emplace_back(p.key, divergence);
  }
  double total = 0;
  for (const auto& entry : importance) total += entry.second;
  if (options.normalize && total > 0)
    for (auto& entry : importance) entry.second /= total;
  std::stable_sort(importance.begin(), importance.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return importance;
}

}  // namespace graphcost::study
