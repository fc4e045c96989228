// Ridge regression in closed form: w = (X'X + lambda I)^-1 X'y, solved by a Cholesky
// factorisation in double. The stack's features are a few members' standardised scores, so X'X
// is a handful of rows and columns; a linear-algebra library would add a dependency for a
// dozen lines.
#pragma once

#include <cstdint>
#include <vector>

namespace graphcost::stack {

// The weights minimising |Xw - y|^2 + lambda |w|^2 for X (rows x width, row-major, rows =
// y.size()). lambda must be > 0 unless X'X is positive definite; a singular system is an Error.
std::vector<double> fit_ridge(const std::vector<double>& x, int64_t width,
                              const std::vector<double>& y, double lambda);

// X w for each row of x (row-major, w.size() columns).
std::vector<double> linear_scores(const std::vector<double>& x, const std::vector<double>& w);

}  // namespace graphcost::stack
