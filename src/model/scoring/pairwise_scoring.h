// Scoring with the pairwise head: ranking by wins against a seeded sample of references.
#pragma once

#include <cstdint>
#include <vector>

#include "data/configs.h"
#include "model/forward/ranker.h"

namespace graphcost::model {

// Seeds the reference sample, so a graph's scores are reproducible.
constexpr uint64_t kPairwiseReferenceSeed = 0x7061697273ULL;

// Positions in [0, count) of the references: min(count, references) of them, a seeded sample
// without replacement, sorted.
std::vector<int64_t> pairwise_reference_positions(int64_t count, int64_t references,
                                                  uint64_t seed);

// Scores (lower = faster) of the listed configurations (all when empty): embeddings computed
// slate_size at a time, then score_i = -mean over the references j != i of P(i faster than j),
// with ranker->options().pairwise_references references drawn among the listed configurations.
std::vector<double> score_configs_by_wins(Ranker& ranker, const GraphTensors& graph,
                                          const data::ConfigView& configs,
                                          const std::vector<int64_t>& config_indices,
                                          int64_t slate_size);

}  // namespace graphcost::model
