// Small model options, layout slates and tile inputs shared by the architecture-option tests.
#pragma once

#include <vector>

#include "data/configs.h"
#include "model/forward/ranker.h"

namespace graphcost::model::testing {

// A small SAGE model over 5 node features, 3 configuration columns, 10 opcodes.
inline ModelOptions small_model_options(data::ConfigKind kind) {
  ModelOptions o;
  o.kind = kind;
  o.node_feature_width = 5;
  o.config_width = 3;
  o.num_opcodes = 10;
  o.opcode_embedding = 4;
  o.node_feature_dim = 3;
  o.hidden = {8, 8, 6};
  return o;
}

// s random layout configurations (values in [-1, 5], 3 columns) of a graph's configurable nodes,
// drawn after torch::manual_seed(seed).
inline Slate random_layout_slate(const GraphTensors& tensors, int64_t s, uint64_t seed) {
  torch::manual_seed(seed);
  Slate slate;
  slate.graph = &tensors;
  slate.config_features =
      torch::randint(-1, 6, {s, tensors.configurable_nodes.size(0), 3}).to(torch::kFloat);
  return slate;
}

// A view over `count` tile configurations of width 3 held in `storage` (seeded values).
inline data::ConfigView tile_view(std::vector<float>& storage, int64_t count, uint32_t seed) {
  storage.resize(count * 3);
  for (int64_t i = 0; i < count * 3; ++i)
    storage[i] = static_cast<float>((i * 7 + seed * 13) % 17) - 3.0f;
  data::ConfigView view;
  view.kind = data::ConfigKind::Tile;
  view.count = count;
  view.width = 3;
  view.tile = storage.data();
  return view;
}

}  // namespace graphcost::model::testing
