// Pruning a layout graph to the neighbourhood of its configurable nodes: most nodes of a large
// XLA program are far from any configurable node and cost memory and time without telling the
// model much about the layouts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/collection.h"

namespace graphcost::data {

// The nodes at undirected distance <= hops from any seed (each hop follows one edge, from a
// node to an operand or to a user), seeds included; sorted ascending, no repeats. Needs the
// graph's adjacency built. hops < 0 gives the seeds alone.
std::vector<int64_t> nodes_within_hops(const Graph& graph, const std::vector<int32_t>& seeds,
                                       int hops);

// Opcode ids of the configurable nodes that seed the neighbourhood, from a spec: "" or "all"
// (every configurable node), "conv-dot-reshape" (the 1st-place TpuGraphs choice), or a comma
// list of HLO opcode names ("convolution,dot"). Empty result: every configurable node. An
// unknown name is an Error.
std::vector<int32_t> parse_prune_seeds(const std::string& spec);

// The configurable nodes whose opcode is in seed_opcodes (every one when seed_opcodes is empty
// or none matches, so a graph without such nodes still keeps its configurable neighbourhood).
std::vector<int32_t> prune_seed_nodes(const Graph& graph, const std::vector<int32_t>& seed_opcodes);

// For a layout record: keeps the nodes within `hops` of a seed (see prune_seed_nodes and
// nodes_within_hops) and every configurable node, renumbered in their original order; keeps the edges between kept nodes
// (in their original order); remaps configurable_nodes (same order, so the configuration table
// is unchanged); maps each node split to the new index of the first kept node at or after it,
// or to the new node count when there is none (as the end boundary n of the released files),
// repeats merged; rebuilds adjacency.
// Returned unchanged: tile records, hops < 0, and layout records without configurable nodes.
GraphRecord prune_to_config_neighbourhood(const GraphRecord& record, int hops,
                                          const std::vector<int32_t>& seed_opcodes = {});

// The graph part of prune_to_config_neighbourhood (configurations are unchanged by pruning).
Graph prune_graph(const Graph& graph, int hops, const std::vector<int32_t>& seed_opcodes = {});

// A view of a collection with every layout graph pruned when first asked for (thread-safe);
// configurations come straight from `base` (a pack stays memory-mapped). hops < 0 or tile
// collections: base is returned as is.
std::unique_ptr<Collection> prune_collection(std::unique_ptr<Collection> base, int hops,
                                             const std::vector<int32_t>& seed_opcodes = {});

}  // namespace graphcost::data
