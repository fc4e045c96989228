// Test-time augmentation for slate-dependent models (cross-configuration attention): each
// configuration's score averaged over several random groupings of the configurations into slates.
#pragma once

#include <cstdint>
#include <vector>

#include "data/configs.h"
#include "model/ranker.h"

namespace graphcost::model {

// The mean over `rounds` (>= 1) random orders of the listed configurations (all when empty),
// round r shuffled by random_stream(seed, r) and cut into slates of slate_size, of each
// configuration's score_configs score; returned in the order of config_indices.
std::vector<double> score_configs_tta(Ranker& ranker, const GraphTensors& graph,
                                      const data::ConfigView& configs,
                                      const std::vector<int64_t>& config_indices,
                                      int64_t slate_size, int64_t rounds, uint64_t seed);

}  // namespace graphcost::model
