// Pruning a layout graph to the neighbourhood of its configurable nodes: most nodes of a large
// XLA program are far from any configurable node and cost memory and time without telling the
// model much about the layouts.
#pragma once

#include <cstdint>
#include <vector>

#include "data/collection.h"

namespace graphcost::data {

// The nodes at undirected distance <= hops from any seed (each hop follows one edge, from a
// node to an operand or to a user), seeds included; sorted ascending, no repeats. Needs the
// graph's adjacency built. hops < 0 gives the seeds alone.
std::vector<int64_t> nodes_within_hops(const Graph& graph, const std::vector<int32_t>& seeds,
                                       int hops);

// For a layout record: keeps the nodes within `hops` of a configurable node (see
// nodes_within_hops), renumbered in their original order; keeps the edges between kept nodes
// (in their original order); remaps configurable_nodes (same order, so the configuration table
// is unchanged); maps each node split to the new index of the first kept node at or after it,
// or to the new node count when there is none (as the end boundary n of the released files),
// repeats merged; rebuilds adjacency.
// Returned unchanged: tile records, hops < 0, and layout records without configurable nodes.
GraphRecord prune_to_config_neighbourhood(const GraphRecord& record, int hops);

}  // namespace graphcost::data
