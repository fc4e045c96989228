// Bayesian-optimisation search ("bo", the default of --strategy model): a bagged ensemble of
// gradient-boosted trees on the log times measured so far (refit every batch) gives each
// candidate a mean and an uncertainty; candidates are proposed around the best measured
// configurations by mutation and crossover (as Ansor's evolutionary search does) plus a random
// sample; the batch is the candidates of highest expected improvement times the probability of
// not failing (a classifier of the failed measurements, not a stand-in time), with a share of
// every batch measured at random so the search keeps exploring. An optional prior from other
// devices (tune/transfer.h) ranks the first batches and is a feature the ensemble learns to
// trust or ignore.
#pragma once

#include <cstddef>  // core/random.h uses size_t
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/random.h"
#include "tune/campaign.h"
#include "tune/surrogate.h"
#include "tune/transfer.h"

namespace graphcost::tune {

struct BayesianOptions {
  int64_t initial = 20;            // measurements before the first surrogate
  EnsembleOptions ensemble;        // members, trees per member (few rounds: refit each batch)
  int64_t parents = 8;             // best measured configurations that mutate and cross over
  int64_t crossovers = 64;         // crossover children per batch
  int64_t random_candidates = 512; // random unmeasured configurations per batch
  double explore = 0.1;            // share of each batch measured at random
  // Candidates around the best measured configuration: every unmeasured one within this many
  // parameters of it (1: the mutations of every parent already cover it).
  int64_t radius = 1;
  // Guided slots of each batch that go to the lowest predicted mean (of candidates not
  // expected to fail) before the expected-improvement order: pure exploitation.
  int64_t greedy = 0;
  // What the ensemble learns: "log" (the log time) or "rank" (the normal scores of the
  // measured times' ranks, normal_scores: the order, with no slow outlier stretching the fit).
  std::string warp = "rank";
};

// What a round of the search knew: for calibration and diagnosis (tune_surrogate_bench).
struct SurrogateSnapshot {
  std::vector<int64_t> configs;  // scored configurations
  std::vector<double> mean, std; // predicted log time
  std::vector<double> failure;   // predicted failure probability
};

class BayesianStrategy : public Strategy {
 public:
  // prior may be empty (no transfer) or hold one cost and failure probability per configuration
  // of the space the strategy will search.
  explicit BayesianStrategy(BayesianOptions options = {}, TransferPrior prior = {});
  std::string name() const override { return "bo"; }
  void reset(const SearchSpace& space, uint64_t seed) override;
  std::vector<int64_t> propose(const SearchSpace& space, const History& history,
                               int64_t count) override;
  // Fits the surrogate and failure model on history and scores `configs` (the bench's
  // calibration check; propose does the same on its candidates).
  SurrogateSnapshot score(const SearchSpace& space, const History& history,
                          const std::vector<int64_t>& configs);

 private:
  void fit(const SearchSpace& space, const History& history);
  std::vector<int64_t> candidates(const SearchSpace& space, const History& history);
  std::vector<float> rows_for(const std::vector<int64_t>& configs) const;

  BayesianOptions options_;
  TransferPrior prior_;
  uint64_t seed_ = 0;
  Random rng_{0};
  int64_t width_ = 0;
  std::vector<float> rows_;  // per configuration of the space: parameters, then prior columns
  BaggedTrees ensemble_;
  double best_label_ = 0;    // the fastest measurement's label, as the ensemble learned it
  std::optional<xgb::GradientBoostedTrees> failure_model_;  // once a failure was measured
};

}  // namespace graphcost::tune
