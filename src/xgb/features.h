// Fixed-width feature rows for tree models: what a gradient-boosted ranker sees of a graph and
// one of its configurations (it cannot read a graph, so the graph is summarised).
//   graph part:  log(1 + count) of each opcode (num_opcodes bins; larger ids go to the last
//                bin), log(1 + nodes), then the sum and the mean of every node feature column;
//   tile config: sign(x) * log(1 + |x|) of each configuration feature;
//   layout config: per configuration column, the share of the configurable nodes holding each
//                value in {-1, ..., 5}; then the raw values of the first layout_nodes
//                configurable nodes (-2 where a graph has fewer).
#pragma once

#include <cstdint>
#include <vector>

#include "data/configs.h"
#include "data/graph.h"

namespace graphcost::xgb {

struct FeatureOptions {
  data::ConfigKind kind = data::ConfigKind::Tile;
  int64_t node_feature_width = 0;  // from the data
  int64_t config_width = 0;        // from the data
  int64_t num_opcodes = 256;
  int64_t layout_nodes = 8;  // configurable nodes whose values are columns of their own
};

// Columns of one row for these options.
int64_t feature_width(const FeatureOptions& options);

// The graph part of a row (the same for every configuration of the graph). A graph whose
// feature width differs from the options is an Error naming it.
std::vector<float> graph_features(const data::Graph& graph, const FeatureOptions& options);

// Rows for the listed configurations, row-major [indices.size(), feature_width]: the graph part
// followed by the configuration part.
std::vector<float> feature_rows(const data::Graph& graph, const data::ConfigView& configs,
                                const std::vector<int64_t>& indices, const FeatureOptions& options);

}  // namespace graphcost::xgb
