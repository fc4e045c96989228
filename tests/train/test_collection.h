// A tiny in-memory collection for the training tests: tile or layout graphs whose runtimes are a
// known function of the configuration features, so a model can learn them.
#pragma once

#include <memory>

#include "data/collection.h"

namespace graphcost::train::testing {

// `graphs` graphs; graph g has `configs + g` configurations (so sizes differ) of a few nodes each.
// Tile: runtime = 1 + sum of weights * features; layout: the same over the configurable nodes.
std::unique_ptr<data::MemoryCollection> make_test_collection(data::ConfigKind kind, int graphs,
                                                             int configs, uint64_t seed,
                                                             const std::string& split = "train");

}  // namespace graphcost::train::testing
