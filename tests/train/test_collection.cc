#include "test_collection.h"

#include "train/sampler.h"

namespace graphcost::train::testing {

std::unique_ptr<data::MemoryCollection> make_test_collection(data::ConfigKind kind, int graphs,
                                                             int configs, uint64_t seed,
                                                             const std::string& split) {
  Random random(seed);
  std::vector<data::GraphRecord> records;
  const int64_t width = kind == data::ConfigKind::Tile ? 6 : 4;
  for (int g = 0; g < graphs; ++g) {
    data::GraphRecord record;
    data::Graph& graph = record.graph;
    graph.name = "graph" + std::to_string(g);
    graph.num_nodes = 5;
    graph.feature_width = 8;
    for (int64_t v = 0; v < graph.num_nodes; ++v) {
      graph.opcodes.push_back(static_cast<int32_t>(v % 3));
      for (int64_t f = 0; f < graph.feature_width; ++f)
        graph.node_features.push_back(static_cast<float>(random.uniform()));
      if (v > 0)
        graph.edges.insert(graph.edges.end(),
                           {static_cast<int32_t>(v), static_cast<int32_t>(v - 1)});
    }
    graph.build_adjacency();
    data::ConfigTable& table = record.configs;
    table.kind = kind;
    table.count = configs + g;
    table.width = width;
    if (kind == data::ConfigKind::Layout) {
      graph.configurable_nodes = {1, 3};
      table.nodes = 2;
    }
    for (int64_t j = 0; j < table.count; ++j) {
      double runtime = 1.0 + 0.1 * g;
      if (kind == data::ConfigKind::Tile) {
        for (int64_t f = 0; f < width; ++f) {
          const float x = static_cast<float>(random.below(8));
          table.tile.push_back(x);
          runtime += (f % 2 ? 0.5 : 0.1) * x;
        }
      } else {
        for (int64_t k = 0; k < table.nodes * width; ++k) {
          const int8_t x = static_cast<int8_t>(static_cast<int>(random.below(7)) - 1);
          table.layout.push_back(x);
          runtime += (k % 3 == 0 ? 0.6 : 0.1) * (x + 1);
        }
      }
      table.runtimes.push_back(runtime);
    }
    record.source = graph.name + ".npz";
    records.push_back(std::move(record));
  }
  data::CollectionId id;
  id.kind = kind;
  id.space = "xla";
  id.search = kind == data::ConfigKind::Tile ? "" : "random";
  return std::make_unique<data::MemoryCollection>(id, split, std::move(records));
}

}  // namespace graphcost::train::testing
