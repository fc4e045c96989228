// The Tree-structured Parzen Estimator (TPE) sampler.
//
// Bergstra, Bardenet, Bengio and Kegl 2011, "Algorithms for Hyper-Parameter Optimization"
// (NeurIPS); Watanabe 2023, "Tree-structured Parzen Estimator: Understanding Its Algorithm
// Components and Their Roles for Better Empirical Performance" (arXiv:2304.11127).
//
// After `startup_trials` random trials, the finished trials are ranked and split into the good
// top gamma(n) = min(ceil(0.1 n), 25) and the bad rest. Ranking: complete trials by their value
// (best first), then pruned trials by how far they got (the last step they reported, later
// first) and then their last reported value; failed and running trials are left out. A Parzen
// estimator (study/parzen.h) is fitted to each side, l(x) to the good and g(x) to the bad;
// `candidates` draws from l(x), the one with the largest log l(x) - log g(x) is kept.
//
// Multivariate ("tpe"; the default): parameters that were active in exactly the same finished
// trials form a group, and each group is drawn jointly from a product kernel over its
// parameters (conditional parameters thus fall in their own groups). Its numeric bandwidths
// follow Scott's rule, 0.2 * range * n^(-1/(d+4)) (as Optuna's multivariate TPE that Watanabe
// 2023 studies): with the neighbour-distance bandwidths, a few good points spread l(x) over
// most of the range and the test's quadratic was no better than with the independent sampler.
// Independent ("tpe:independent", as in Bergstra et al. 2011): each parameter is its own group,
// bandwidths from the neighbours' distances. A group seen in no finished trial is drawn at
// random. Both: the same (seed, trial number, history) gives the same draw.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "study/sampler.h"

namespace graphcost::study {

struct TpeOptions {
  int64_t startup_trials = 10;  // random trials before the model takes over
  int64_t candidates = 24;      // draws from l(x) per group
  double prior_weight = 1.0;    // weight of the prior component (each observation weighs 1)
  bool multivariate = true;
};

// Reads {"startup_trials", "candidates", "prior_weight"} over the defaults; an unknown key or a
// bad value is an Error naming the key.
TpeOptions parse_tpe_options(const nlohmann::json& options);

// gamma(n) = min(ceil(0.1 n), 25): how many of n ranked trials are "good".
int64_t tpe_good_count(int64_t n);

class TpeSampler : public Sampler {
 public:
  TpeSampler(uint64_t seed, TpeOptions options) : seed_(seed), options_(options) {}
  nlohmann::json sample(const SearchSpace& space, const std::vector<TrialRecord>& history,
                        int64_t trial_number, bool maximize) override;

 private:
  uint64_t seed_;
  TpeOptions options_;
};

}  // namespace graphcost::study
