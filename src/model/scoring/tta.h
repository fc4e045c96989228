// Scoring slate-dependent models (cross-configuration attention): test-time augmentation (each
// configuration's score averaged over several random groupings into slates) or anchors (every
// configuration scored against the same fixed configurations).
#pragma once

#include <cstdint>
#include <vector>

#include "data/configs.h"
#include "model/forward/ranker.h"

namespace graphcost::model {

// The mean over `rounds` (>= 1) random orders of the listed configurations (all when empty),
// round r shuffled by random_stream(seed, r) and cut into slates of slate_size, of each
// configuration's score_configs score; returned in the order of config_indices.
std::vector<double> score_configs_tta(Ranker& ranker, const GraphTensors& graph,
                                      const data::ConfigView& configs,
                                      const std::vector<int64_t>& config_indices,
                                      int64_t slate_size, int64_t rounds, uint64_t seed);

// Scores every listed configuration (all when empty) in the same context: each in its own slate
// with one fixed set of anchors, `anchors` configurations drawn from the listed ones by seed (all
// of them when fewer). Deterministic for a seed, one pass, and scores compare across the graph
// (a random slate grouping shifts them per slate). Needs attention and the score head.
std::vector<double> score_configs_anchored(Ranker& ranker, const GraphTensors& graph,
                                           const data::ConfigView& configs,
                                           const std::vector<int64_t>& config_indices,
                                           int64_t slate_size, int64_t anchors, uint64_t seed);

}  // namespace graphcost::model
