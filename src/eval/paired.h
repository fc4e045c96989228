// Paired comparison of two rankers on the same units (graphs, or groups of a graph's
// configurations): is one's metric higher than the other's by more than which units were drawn?
#pragma once

#include <cstdint>
#include <vector>

namespace graphcost::eval {

struct PairedComparison {
  int64_t units = 0;           // units where both values are defined (not NaN)
  double mean_difference = 0;  // mean of other - base over those units; NaN when none
  double standard_error = 0;   // sample standard deviation / sqrt(units); NaN below 2 units
  int64_t wins = 0;            // units where other > base
  int64_t losses = 0;          // units where other < base
  // The two-sided 95% Student t interval of the mean difference: mean -+ t(0.975, units - 1) *
  // standard_error; NaN below 2 units. An effect is claimed only where it excludes zero.
  double interval_low = 0, interval_high = 0;
  bool excludes_zero() const { return interval_low > 0 || interval_high < 0; }
};

// Compares other[i] with base[i] unit by unit, skipping units where either is NaN. Sizes that
// differ are an Error.
PairedComparison compare_paired(const std::vector<double>& base, const std::vector<double>& other);

// The 0.975 quantile of Student's t distribution with `degrees` degrees of freedom (Boost.Math),
// e.g. 2.776 for 4; degrees must be at least 1.
double student_t_975(int64_t degrees);

// Splits indices 0..count-1 into `groups` disjoint groups of near-equal size (sizes differ by at
// most one), each sorted, after a shuffle seeded by seed. groups must be in [1, count].
std::vector<std::vector<int64_t>> random_groups(int64_t count, int64_t groups, uint64_t seed);

}  // namespace graphcost::eval
