// A hand-made tuning problem: parameters x in {1, 2, 4, 8} (a log2 column) and y in {0, 1, 2},
// every combination recorded, runtime 10 + |log2 x - 2| + y (optimum 10 at x = 4, y = 0), and
// the configurations with x = 1, y = 2 and x = 8, y = 2 failed.
#pragma once

#include <cmath>

#include "data/collection.h"
#include "io/kernel_tuner.h"
#include "tune/search_space.h"

namespace graphcost::tune::testing {

inline data::GraphRecord small_tune_record() {
  data::GraphRecord r;
  r.graph.name = "toy_kernel";
  r.graph.num_nodes = 1;
  r.graph.feature_width = 2;
  r.graph.opcodes = {0};
  r.graph.node_features = {1.0f, 3.0f};
  r.graph.build_adjacency();
  data::ConfigTable& t = r.configs;
  t.kind = data::ConfigKind::Tile;
  t.width = 2;
  for (int x = 0; x < 4; ++x) {
    for (int y = 0; y < 3; ++y) {
      t.tile.push_back(static_cast<float>(x));
      t.tile.push_back(static_cast<float>(y));
      const bool failed = y == 2 && (x == 0 || x == 3);
      t.failed.push_back(failed ? 1 : 0);
      t.runtimes.push_back(failed ? 200.0 : 10.0 + std::abs(x - 2) + y);
      ++t.count;
    }
  }
  r.source = "toy.json";
  return r;
}

// The Kernel Tuner layout of small_tune_record: x a log2 column, y a plain one.
inline std::vector<io::KernelTunerParameter> small_tune_layout() {
  io::KernelTunerParameter x{"x", 0, false, {"1", "2", "4", "8"}, {0, 1, 2, 3}};
  io::KernelTunerParameter y{"y", 1, false, {"0", "1", "2"}, {0, 1, 2}};
  return {x, y};
}

// The search space of small_tune_record under small_tune_layout.
inline SearchSpace toy_space() {
  static const data::GraphRecord r = small_tune_record();
  return make_search_space("toy", r.configs.view(), small_tune_layout());
}

}  // namespace graphcost::tune::testing
