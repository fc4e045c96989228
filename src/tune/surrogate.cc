#include "tune/surrogate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "core/error.h"
#include "core/random.h"

namespace graphcost::tune {

namespace {

bool parse_number(const std::string& text, double* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*value);
}

}  // namespace

std::vector<float> parameter_rows(const SearchSpace& space, const SearchSpace& reference) {
  const int64_t width = reference.parameter_count();
  // Per reference parameter and per level of `space`'s matching parameter: the feature value.
  std::vector<int64_t> source(width, -1);
  std::vector<std::vector<float>> value(width);
  for (int64_t r = 0; r < width; ++r) {
    const TuneParameter& want = reference.parameters[r];
    for (int64_t p = 0; p < space.parameter_count(); ++p) {
      if (space.parameters[p].name == want.name) source[r] = p;
    }
    if (source[r] < 0) continue;
    for (const std::string& label : space.parameters[source[r]].labels) {
      double number = 0;
      float v = std::nanf("");
      if (parse_number(label, &number)) {
        v = static_cast<float>(number);
      } else {
        for (size_t k = 0; k < want.labels.size(); ++k) {
          if (want.labels[k] == label) v = static_cast<float>(k);
        }
      }
      value[r].push_back(v);
    }
  }
  std::vector<float> rows(space.count * width, std::nanf(""));
  for (int64_t j = 0; j < space.count; ++j) {
    const int32_t* levels = space.config_levels(j);
    for (int64_t r = 0; r < width; ++r) {
      if (source[r] >= 0) rows[j * width + r] = value[r][levels[source[r]]];
    }
  }
  return rows;
}

void BaggedTrees::fit(const std::vector<float>& rows, int64_t width,
                      const std::vector<float>& labels, const EnsembleOptions& options,
                      uint64_t seed) {
  check_data(options.members >= 2, "tune", "--members", "must be at least 2");
  const size_t n = labels.size();
  check_data(n >= 2, "tune", "surrogate", "needs at least 2 measured configurations");
  members_.clear();
  Random rng = random_stream(seed, 11);
  // in_bag[m][i]: how often member m drew row i.
  std::vector<std::vector<uint8_t>> in_bag(options.members, std::vector<uint8_t>(n, 0));
  for (int64_t m = 0; m < options.members; ++m) {
    std::vector<float> sample_rows;
    std::vector<float> sample_labels;
    sample_rows.reserve(n * width);
    for (size_t k = 0; k < n; ++k) {
      const size_t i = rng.below(n);
      in_bag[m][i] = 1;
      sample_rows.insert(sample_rows.end(), rows.begin() + i * width, rows.begin() + (i + 1) * width);
      sample_labels.push_back(labels[i]);
    }
    xgb::TreeOptions trees = options.trees;
    trees.seed = rng.next() >> 33;
    members_.push_back(xgb::GradientBoostedTrees::train(sample_rows, width, sample_labels, trees));
  }
  scale_ = 1.0;
  if (!options.calibrate) return;
  // Out-of-bag z-scores: a point's residual against the members that never saw it, over their
  // spread. Bagged trees' spread is usually too narrow far from the data and the scale fixes
  // its average; points seen by all but one member have no spread and are left out.
  std::vector<std::vector<double>> predictions;
  for (const auto& member : members_) predictions.push_back(member.predict(rows));
  double sum_z2 = 0;
  int64_t counted = 0;
  for (size_t i = 0; i < n; ++i) {
    double s = 0, s2 = 0;
    int64_t k = 0;
    for (int64_t m = 0; m < options.members; ++m) {
      if (in_bag[m][i]) continue;
      s += predictions[m][i];
      s2 += predictions[m][i] * predictions[m][i];
      ++k;
    }
    if (k < 2) continue;
    const double mean = s / k;
    const double sd = std::sqrt(std::max(0.0, s2 / k - mean * mean));
    if (sd <= 1e-12) continue;
    const double z = (labels[i] - mean) / sd;
    sum_z2 += z * z;
    ++counted;
  }
  if (counted >= 5) scale_ = std::min(10.0, std::max(0.5, std::sqrt(sum_z2 / counted)));
}

void BaggedTrees::predict(const std::vector<float>& rows, std::vector<double>* mean,
                          std::vector<double>* std) const {
  check_data(fitted(), "tune", "surrogate", "predict before fit");
  const size_t n = rows.size() / members_.front().width();
  mean->assign(n, 0.0);
  std->assign(n, 0.0);
  std::vector<double> sum_squares(n, 0.0);
  for (const auto& member : members_) {
    const std::vector<double> p = member.predict(rows);
    for (size_t i = 0; i < n; ++i) {
      (*mean)[i] += p[i];
      sum_squares[i] += p[i] * p[i];
    }
  }
  const double m = static_cast<double>(members_.size());
  for (size_t i = 0; i < n; ++i) {
    (*mean)[i] /= m;
    (*std)[i] = scale_ * std::sqrt(std::max(0.0, sum_squares[i] / m - (*mean)[i] * (*mean)[i]));
  }
}

double expected_improvement(double mean, double std, double best) {
  const double gain = best - mean;
  if (std <= 0) return std::max(0.0, gain);
  const double z = gain / std;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
  return gain * cdf + std * pdf;
}

double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<float> normal_scores(const std::vector<float>& values) {
  const size_t n = values.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<float> out(n);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = 0.5 * static_cast<double>(i + j);  // ties: their mean rank
    const double z = normal_quantile((rank + 0.5) / static_cast<double>(n));
    for (size_t k = i; k <= j; ++k) out[order[k]] = static_cast<float>(z);
    i = j + 1;
  }
  return out;
}

double interval_coverage(const std::vector<double>& mean, const std::vector<double>& std,
                         const std::vector<double>& truth, double z) {
  if (truth.empty()) return std::nan("");
  int64_t inside = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    if (std::abs(truth[i] - mean[i]) <= z * std[i]) ++inside;
  }
  return static_cast<double>(inside) / truth.size();
}

}  // namespace graphcost::tune
