#include "stack/ridge.h"

#include <cmath>

#include "core/error.h"

namespace graphcost::stack {

std::vector<double> fit_ridge(const std::vector<double>& x, int64_t width,
                              const std::vector<double>& y, double lambda) {
  const size_t p = static_cast<size_t>(width);
  check_data(width >= 1 && x.size() == y.size() * p, "ridge", "rows",
             "need one row of " + std::to_string(width) + " features per target");
  check_data(lambda >= 0, "ridge", "lambda", "must be at least 0");
  // Normal equations A w = b with A = X'X + lambda I, b = X'y.
  std::vector<double> a(p * p, 0.0), b(p, 0.0);
  for (size_t r = 0; r < y.size(); ++r) {
    const double* row = &x[r * p];
    for (size_t i = 0; i < p; ++i) {
      b[i] += row[i] * y[r];
      for (size_t j = 0; j <= i; ++j) a[i * p + j] += row[i] * row[j];
    }
  }
  for (size_t i = 0; i < p; ++i) a[i * p + i] += lambda;
  // Cholesky A = L L' in the lower triangle of a.
  for (size_t j = 0; j < p; ++j) {
    double d = a[j * p + j];
    for (size_t k = 0; k < j; ++k) d -= a[j * p + k] * a[j * p + k];
    check_data(d > 1e-12 * (1.0 + std::abs(a[j * p + j])), "ridge", "features",
               "X'X + lambda I is singular (members with identical scores and lambda 0?)");
    a[j * p + j] = std::sqrt(d);
    for (size_t i = j + 1; i < p; ++i) {
      double s = a[i * p + j];
      for (size_t k = 0; k < j; ++k) s -= a[i * p + k] * a[j * p + k];
      a[i * p + j] = s / a[j * p + j];
    }
  }
  // L z = b, then L' w = z.
  std::vector<double> w(p);
  for (size_t i = 0; i < p; ++i) {
    double s = b[i];
    for (size_t k = 0; k < i; ++k) s -= a[i * p + k] * w[k];
    w[i] = s / a[i * p + i];
  }
  for (size_t i = p; i-- > 0;) {
    double s = w[i];
    for (size_t k = i + 1; k < p; ++k) s -= a[k * p + i] * w[k];
    w[i] = s / a[i * p + i];
  }
  return w;
}

std::vector<double> linear_scores(const std::vector<double>& x, const std::vector<double>& w) {
  const size_t p = w.size();
  std::vector<double> out(p == 0 ? 0 : x.size() / p, 0.0);
  for (size_t r = 0; r < out.size(); ++r)
    for (size_t i = 0; i < p; ++i) out[r] += x[r * p + i] * w[i];
  return out;
}

}  // namespace graphcost::stack
