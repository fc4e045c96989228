// A custom collection plan for `graphcost synth --plan FILE.json`: which collections to write,
// how many files per split and the ranges their sizes are drawn from, e.g. one collection of
// 6k-node layout graphs with 10% configurable nodes for a benchmark.
//
//   [{"collection": "layout:xla:random", "files": [4, 1, 0],
//     "nodes": [6000, 6000], "configs": [1000, 1000], "configurable_fraction": [0.1, 0.1]}]
//
// "files" is train, valid, test; each range is [min, max] (log-uniform for nodes and configs,
// uniform for the fraction); "max_layout_cells" (configs x configurable nodes per file) is
// optional. Graphs of a tile collection ignore "configurable_fraction". A layout random collection
// may set "random_search": "independent" (the default: every node on its own) or "tied" (groups
// of nodes with a few candidate assignments each, as in real random-search files; generator.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "synth/dataset.h"

namespace graphcost::synth {

// Reads a plan from parsed JSON; `where` names its source in errors. An unknown key, a missing
// key, a wrong type or an out-of-range value is an Error naming the key.
std::vector<CollectionPlan> collection_plans_from_json(const nlohmann::json& j,
                                                       const std::string& where);
// Reads a plan file (see above); an unreadable or malformed file is an Error naming it.
std::vector<CollectionPlan> read_collection_plans(const std::string& path);

}  // namespace graphcost::synth
