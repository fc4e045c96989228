// Predictive uncertainty of a trained ranker by Monte Carlo dropout (Gal and Ghahramani, 2016):
// the model scores every configuration several times with dropout left on, and the spread of
// those scores stands for the model's uncertainty about each configuration.
#pragma once

#include <cstdint>
#include <vector>

#include "data/configs.h"
#include "model/forward/ranker.h"

namespace graphcost::model {

// Per configuration: the mean and the (population) standard deviation of its scores.
struct ScoreStats {
  std::vector<double> mean;
  std::vector<double> std;
};

// Scores the listed configurations (all when config_indices is empty) `samples` times with
// dropout on (train mode, no gradients), slate_size configurations per forward pass. The dropout
// masks come from LibTorch's default generator seeded with `seed`; its previous state and the
// model's train/eval mode are restored afterwards, so a call changes nothing else. With
// dropout 0 the spread is exactly 0 and the mean equals score_configs(). samples < 1 is an Error.
ScoreStats mc_dropout_scores(Ranker& ranker, const GraphTensors& graph,
                             const data::ConfigView& configs,
                             const std::vector<int64_t>& config_indices, int64_t samples,
                             uint64_t seed, int64_t slate_size = 256);

}  // namespace graphcost::model
