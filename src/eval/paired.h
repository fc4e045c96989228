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
};

// Compares other[i] with base[i] unit by unit, skipping units where either is NaN. Sizes that
// differ are an Error.
PairedComparison compare_paired(const std::vector<double>& base, const std::vector<double>& other);

// Splits indices 0..count-1 into `groups` disjoint groups of near-equal size (sizes differ by at
// most one), each sorted, after a shuffle seeded by seed. groups must be in [1, count].
std::vector<std::vector<int64_t>> random_groups(int64_t count, int64_t groups, uint64_t seed);

}  // namespace graphcost::eval
