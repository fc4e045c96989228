// Small hand-built records shared by the data-layer tests.
#pragma once

#include "data/collection.h"

namespace graphcost::data::testing {

// 4 nodes: 0,1 parameters; 2 = f(0,1); 3 = g(2, 2) (a duplicate edge); 2 configurable nodes
// (1 and 2), 3 layout configurations of width 2, the third a duplicate of the first.
inline GraphRecord small_layout_record() {
  GraphRecord r;
  r.source = "small.npz";
  Graph& g = r.graph;
  g.name = "small";
  g.num_nodes = 4;
  g.feature_width = 2;
  g.opcodes = {63, 63, 2, 59};
  g.node_features = {0, 1, 0, 2, 1, 3, 1, 4};
  g.edges = {2, 0, 2, 1, 3, 2, 3, 2};
  g.node_splits = {0};
  g.configurable_nodes = {1, 2};
  g.build_adjacency();
  ConfigTable& t = r.configs;
  t.kind = ConfigKind::Layout;
  t.count = 3;
  t.nodes = 2;
  t.width = 2;
  t.layout = {0, 1, 1, 0, /**/ -1, -1, 0, 1, /**/ 0, 1, 1, 0};
  t.runtimes = {30, 20, 10};
  return r;
}

}  // namespace graphcost::data::testing
