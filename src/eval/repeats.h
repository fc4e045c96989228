// Repeated measurements. Tuning records often measure a configuration more than once; how far
// two measurements of the same configurations agree says how much of a ranking any model can
// get right against one measurement.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "data/configs.h"

namespace graphcost::eval {

// Two measurements of every configuration measured at least twice: its first successful record
// and the first later successful record at least min_gap records after it, when that is at most
// max_gap records after it. Records are in file
// order, the order a tuner wrote them in, so the gap stands for time: measurements close together
// share the session's drift and agree more than independent ones. Failed measurements (stand-in
// runtimes) are skipped. Configurations are in order of their first record.
struct RepeatPairs {
  std::vector<int64_t> first_record;
  std::vector<int64_t> second_record;
  std::vector<double> first;
  std::vector<double> second;

  int64_t size() const { return static_cast<int64_t>(first.size()); }
  // The pairs at the listed positions, in that order.
  RepeatPairs select(const std::vector<int64_t>& positions) const;
};

// Needs runtimes; 1 <= min_gap <= max_gap (min_gap 1: the next repeat, however close).
RepeatPairs repeat_pairs(const data::ConfigView& configs, int64_t min_gap,
                         int64_t max_gap = std::numeric_limits<int64_t>::max());

// The positions of the pairs in the fast group: both measurements below ratio times `fastest`.
std::vector<int64_t> fast_pairs(const RepeatPairs& pairs, double fastest, double ratio);

// The upper bound on a ranker's expected Kendall tau against one measurement, given that two
// independent measurements agree at repeat_tau: a measurement orders a pair wrongly with some
// probability p, two measurements then disagree on it with probability 2p(1 - p), and solving
// for p is convex in the disagreement, so by Jensen the true runtimes' expected tau against one
// measurement is at most sqrt(repeat_tau). (Ties are ignored: tau-b makes it approximate.) NaN
// when repeat_tau is not positive.
double oracle_tau_bound(double repeat_tau);

// How two measurements of the same configurations agree.
struct Agreement {
  int64_t count = 0;
  double median_relative_difference = std::numeric_limits<double>::quiet_NaN();  // |a-b| / min
  double tau = std::numeric_limits<double>::quiet_NaN();    // Kendall tau-b of the two
  double bound = std::numeric_limits<double>::quiet_NaN();  // oracle_tau_bound(tau)
};
Agreement agreement(const RepeatPairs& pairs);

}  // namespace graphcost::eval
