// Ingest then read back: a .pb tuning record written as .npz by io::write_tpugraphs_npz and
// read by io::read_tpugraphs_npz gives the same arrays, in the library (layout, tile with the
// extended features, uncompressed) and through `graphcost ingest` on the command line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/tpugraphs_npz.h"
#include "io/tuning_records.h"
#include "../cli/graphcost_binary.h"

namespace graphcost::io {
namespace {

namespace fs = std::filesystem;

std::string shared_file(const std::string& name) {
  return std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/" + name;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("graphcost_ingest_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void expect_same_graph(const data::GraphRecord& expected, const data::GraphRecord& actual) {
  const data::Graph& a = expected.graph;
  const data::Graph& b = actual.graph;
  EXPECT_EQ(b.num_nodes, a.num_nodes);
  EXPECT_EQ(b.feature_width, a.feature_width);
  EXPECT_EQ(b.opcodes, a.opcodes);
  EXPECT_EQ(b.node_features, a.node_features);
  EXPECT_EQ(b.edges, a.edges);
  EXPECT_EQ(b.configurable_nodes, a.configurable_nodes);
  EXPECT_EQ(actual.configs.kind, expected.configs.kind);
  EXPECT_EQ(actual.configs.count, expected.configs.count);
  EXPECT_EQ(actual.configs.nodes, expected.configs.nodes);
  EXPECT_EQ(actual.configs.width, expected.configs.width);
  EXPECT_EQ(actual.configs.tile, expected.configs.tile);
  EXPECT_EQ(actual.configs.layout, expected.configs.layout);
  ASSERT_EQ(actual.configs.runtimes.size(), expected.configs.runtimes.size());
  for (size_t j = 0; j < expected.configs.runtimes.size(); ++j) {
    EXPECT_DOUBLE_EQ(actual.configs.runtimes[j], expected.configs.runtimes[j]) << j;
  }
}

TEST(IngestRoundTrip, LayoutRecord) {
  const std::string input = shared_file("module_tuning_data_layout.pb");
  if (!fs::exists(input)) GTEST_SKIP() << "shared data absent: " << input;
  const TuningFile file = read_tuning_file(input, FeatureSet::Standard);
  const TuningGraph& tuning = file.graphs.at(0);
  const fs::path out = fresh_dir("layout") / "module_tuning_data_layout.npz";
  write_tpugraphs_npz(out.string(), tuning.record, tuning.runtimes, true);
  const data::GraphRecord back = read_tpugraphs_npz(out.string());
  expect_same_graph(tuning.record, back);
  EXPECT_EQ(back.graph.node_splits, tuning.record.graph.node_splits);
}

TEST(IngestRoundTrip, TileRecordsExtendedUncompressed) {
  const std::string input = shared_file("op_tuning_data.pb");
  if (!fs::exists(input)) GTEST_SKIP() << "shared data absent: " << input;
  const TuningFile file = read_tuning_file(input, FeatureSet::Extended);
  const fs::path dir = fresh_dir("tile");
  for (const TuningGraph& tuning : file.graphs) {
    const fs::path out = dir / (tuning.record.graph.name + ".npz");
    write_tpugraphs_npz(out.string(), tuning.record, tuning.runtimes, false);
    const data::GraphRecord back = read_tpugraphs_npz(out.string());
    expect_same_graph(tuning.record, back);
  }
}

TEST(IngestRoundTrip, CommandLine) {
  const std::string input = shared_file("op_tuning_data.pb");
  if (!fs::exists(input)) GTEST_SKIP() << "shared data absent: " << input;
  const fs::path dir = fresh_dir("cli");
  const std::string command = graphcost::testing::graphcost_command("ingest " + input) + " --out " +
                              dir.string() + " > " + (dir / "log.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().extension() == ".npz";
  EXPECT_EQ(files, 15);
  const data::GraphRecord copy = read_tpugraphs_npz((dir / "copy.24.npz").string());
  EXPECT_EQ(copy.graph.num_nodes, 2);
  EXPECT_EQ(copy.graph.feature_width, 140);
  EXPECT_EQ(copy.configs.count, 10);  // module 6 "copy.24": 10 runs, no errors
}

}  // namespace
}  // namespace graphcost::io
