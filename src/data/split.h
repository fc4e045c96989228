// Splitting one graph's configurations into a training and a held-out part, for experiments
// on a single measured program (e.g. train on 20% of AlexNet's layouts, test on the rest).
#pragma once

#include <cstdint>
#include <utility>

#include "data/collection.h"

namespace graphcost::data {

// A seeded random split: round(fraction * c) configurations (at least 1, at most c - 1) go to
// the first record, the rest to the second, each keeping the original relative order.
std::pair<GraphRecord, GraphRecord> split_configs(const GraphRecord& record, double fraction,
                                                  uint64_t seed);

}  // namespace graphcost::data
