// Summaries of tuning campaigns: how many measurements it took to come within a fraction of
// the optimum, and the best-found-so-far curve averaged over seeds.
#pragma once

#include <cstdint>
#include <vector>

namespace graphcost::tune {

// The number of measurements (1-based) after which best_so_far <= target; -1 when never.
int64_t measurements_to_reach(const std::vector<double>& best_so_far, double target);

struct ReachSummary {
  double within = 0.0;         // e.g. 0.01: within 1% of the optimum
  double mean = 0.0;           // mean measurements over the seeds that reached it; NaN if none
  // Over every seed, a seed that did not reach it counted as budget + 1: the figure to compare
  // strategies by, since the mean above hides how often a strategy misses.
  double mean_with_misses = 0.0;
  double median_with_misses = 0.0;
  int64_t seeds_reached = 0;
  int64_t seeds = 0;
  std::vector<int64_t> per_seed;  // -1 where a seed did not reach it
};

// Reach of the target optimum * (1 + within) for each curve; budget (the campaigns' budget;
// <= 0: the longest curve's length) + 1 stands in for a miss in the *_with_misses figures.
ReachSummary summarize_reach(const std::vector<std::vector<double>>& curves, double optimum,
                             double within, int64_t budget = 0);

// The mean best-so-far over the seeds after each measurement, up to the longest curve; a curve
// that ended early (space exhausted) keeps its last value, and seeds with no success yet
// (+infinity) are left out of that step's mean (NaN when no seed has one).
std::vector<double> mean_curve(const std::vector<std::vector<double>>& curves);

}  // namespace graphcost::tune
