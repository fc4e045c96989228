// Ingestion of the two real TpuGraphs tuning records in shared/data/tpugraphs/.
#include "io/tuning_records.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "io/hlo_opcodes.h"

namespace graphcost::io {
namespace {

std::string shared_file(const std::string& name) {
  return std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/" + name;
}

#define SKIP_WITHOUT(path)                                                 \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << (path) << " (shared data absent)"

float feature(const data::Graph& graph, int64_t node, int64_t column) {
  return graph.features(node)[column];
}

TEST(TuningRecords, DumpLayout) {
  const std::string path = shared_file("module_tuning_data_layout.pb");
  SKIP_WITHOUT(path);
  const TuningFile file = read_tuning_file(path, FeatureSet::Standard);
  const auto& g = file.graphs.at(0).record.graph;
  std::printf("nodes %ld edges %ld nc %zu configs %ld runs %ld errors %ld\n", g.num_nodes,
              g.num_edges(), g.configurable_nodes.size(), file.graphs[0].record.configs.count,
              file.graphs[0].runs, file.graphs[0].error_runs);
  for (auto s : g.node_splits) std::printf("%ld ", s);
  std::printf("\n");
  int conv = 0, reshape = 0;
  for (auto n : g.configurable_nodes) {
    conv += g.opcodes[n] == 26;
    reshape += g.opcodes[n] == 75;
  }
  std::printf("conv %d reshape %d\n", conv, reshape);
}

}  // namespace
}  // namespace graphcost::io
