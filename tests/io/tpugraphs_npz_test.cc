#include "io/tpugraphs_npz.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "io/npz.h"
#include "expect_error.h"
#include "temp_dir.h"

namespace graphcost::io {
namespace {

using testing::expect_error;

// A 4-node graph: 0, 1 parameters; 2 = f(0, 1); 3 = g(2).
data::Graph small_graph(int64_t width) {
  data::Graph g;
  g.num_nodes = 4;
  g.feature_width = width;
  g.opcodes = {63, 63, 2, 300 % 256};
  for (int64_t i = 0; i < 4 * width; ++i)
    g.node_features.push_back(0.25f * static_cast<float>(i) - 1);
  g.edges = {2, 0, 2, 1, 3, 2};
  return g;
}

data::GraphRecord tile_record() {
  data::GraphRecord r;
  r.graph = small_graph(3);
  r.configs.kind = data::ConfigKind::Tile;
  r.configs.count = 2;
  r.configs.width = 5;
  for (int i = 0; i < 10; ++i) r.configs.tile.push_back(static_cast<float>(i * i));
  return r;
}

data::GraphRecord layout_record() {
  data::GraphRecord r;
  r.graph = small_graph(2);
  r.graph.configurable_nodes = {2, 3};
  r.graph.node_splits = {0, 2};
  r.configs.kind = data::ConfigKind::Layout;
  r.configs.count = 3;
  r.configs.nodes = 2;
  r.configs.width = 4;
  for (int i = 0; i < 24; ++i) r.configs.layout.push_back(static_cast<int8_t>(i % 7 - 1));
  r.configs.layout[5] = -128;
  r.configs.layout[6] = 127;
  return r;
}

void expect_same_graph(const data::Graph& a, const data::Graph& b) {
  EXPECT_EQ(a.num_nodes, b.num_nodes);
  EXPECT_EQ(a.feature_width, b.feature_width);
  EXPECT_EQ(a.opcodes, b.opcodes);
  EXPECT_EQ(a.node_features, b.node_features);
  EXPECT_EQ(a.edges, b.edges);
  EXPECT_EQ(a.node_splits, b.node_splits);
  EXPECT_EQ(a.configurable_nodes, b.configurable_nodes);
}

class TpuGraphsNpzTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  // Writes the layout record, then rewrites one key with the given array.
  std::string layout_with(const std::string& key, const NpyArray& array) {
    const std::string file = path("bad_layout.npz");
    write_tpugraphs_npz(file, layout_record(), {{10, 20, 30}, {}}, false);
    NpzReader reader(file);
    NpzWriter writer(file, false);
    for (const std::string& k : reader.keys()) {
      if (k != key) writer.add(k, reader.read(k));
    }
    if (!array.shape.empty() || !array.data.empty()) writer.add(key, array);
    writer.commit();
    return file;
  }

  TempDir dir_;
};

TEST_F(TpuGraphsNpzTest, TileRoundTrip) {
  for (bool compress : {false, true}) {
    const data::GraphRecord original = tile_record();
    const std::string file = path("conv_tile.npz");
    write_tpugraphs_npz(file, original, {{300, 500}, {100, 200}}, compress);
    const data::GraphRecord back = read_tpugraphs_npz(file);
    EXPECT_EQ(back.source, file);
    EXPECT_EQ(back.graph.name, "conv_tile");
    expect_same_graph(back.graph, original.graph);
    EXPECT_EQ(back.graph.operands.offsets, (std::vector<int64_t>{0, 0, 0, 2, 3}));
    EXPECT_EQ(back.graph.operands.indices, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(back.graph.users.offsets, (std::vector<int64_t>{0, 1, 2, 3, 3}));
    EXPECT_EQ(back.configs.kind, data::ConfigKind::Tile);
    EXPECT_EQ(back.configs.count, 2);
    EXPECT_EQ(back.configs.nodes, 0);
    EXPECT_EQ(back.configs.width, 5);
    EXPECT_EQ(back.configs.tile, original.configs.tile);
    EXPECT_TRUE(back.configs.layout.empty());
    EXPECT_EQ(back.configs.runtimes, (std::vector<double>{3.0, 2.5}));
  }
}

TEST_F(TpuGraphsNpzTest, LayoutRoundTrip) {
  const data::GraphRecord original = layout_record();
  const std::string file = path("net_layout.npz");
  write_tpugraphs_npz(file, original, {{10, 20, 30}, {}}, true);
  NpzReader raw(file);
  EXPECT_EQ(raw.read_header("node_splits").shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(raw.read_header("node_opcode").dtype, DType::UInt8);
  const data::GraphRecord back = read_tpugraphs_npz(file);
  EXPECT_EQ(back.graph.name, "net_layout");
  expect_same_graph(back.graph, original.graph);
  EXPECT_EQ(back.configs.kind, data::ConfigKind::Layout);
  EXPECT_EQ(back.configs.count, 3);
  EXPECT_EQ(back.configs.nodes, 2);
  EXPECT_EQ(back.configs.width, 4);
  EXPECT_EQ(back.configs.layout, original.configs.layout);
  EXPECT_TRUE(back.configs.tile.empty());
  EXPECT_EQ(back.configs.runtimes, (std::vector<double>{10, 20, 30}));
}

TEST_F(TpuGraphsNpzTest, AbsentOrZeroRuntimesLeaveRuntimesEmpty) {
  const std::string file = path("test_file.npz");
  write_tpugraphs_npz(file, layout_record(), {}, false);
  EXPECT_FALSE(NpzReader(file).has("config_runtime"));
  EXPECT_TRUE(read_tpugraphs_npz(file).configs.runtimes.empty());
  write_tpugraphs_npz(file, tile_record(), {{0, 0}, {0, 0}}, false);
  EXPECT_TRUE(read_tpugraphs_npz(file).configs.runtimes.empty());
}

TEST_F(TpuGraphsNpzTest, WideOpcodesAndIntegerDtypesInTheWild) {
  data::GraphRecord record = layout_record();
  record.graph.opcodes[0] = 1000;
  const std::string file = path("wide.npz");
  write_tpugraphs_npz(file, record, {{1, 2, 3}, {}}, false);
  EXPECT_EQ(NpzReader(file).read_header("node_opcode").dtype, DType::Int32);
  EXPECT_EQ(read_tpugraphs_npz(file).graph.opcodes, record.graph.opcodes);
  // int32 edge_index and uint16 config ids are read the same.
  layout_with("edge_index", make_array(std::vector<int32_t>{2, 0, 2, 1, 3, 2}, {3, 2}));
  EXPECT_EQ(read_tpugraphs_npz(path("bad_layout.npz")).graph.edges,
            (std::vector<int32_t>{2, 0, 2, 1, 3, 2}));
  layout_with("node_config_ids", make_array(std::vector<uint16_t>{2, 3}, {2}));
  EXPECT_EQ(read_tpugraphs_npz(path("bad_layout.npz")).graph.configurable_nodes,
            (std::vector<int32_t>{2, 3}));
  layout_with("node_splits", make_array(std::vector<int64_t>{0, 2}, {2}));
  EXPECT_EQ(read_tpugraphs_npz(path("bad_layout.npz")).graph.node_splits,
            (std::vector<int64_t>{0, 2}));
}

TEST_F(TpuGraphsNpzTest, MissingKeysAndWrongShapesNameFileAndKey) {
  std::string file = layout_with("node_feat", NpyArray{DType::Float32, {}, {}});
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_feat: missing key"});
  file = layout_with("node_config_ids", NpyArray{DType::Float32, {}, {}});
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_config_ids: missing key"});
  file = layout_with("node_opcode", make_array(std::vector<int32_t>{1, 2, 3}, {3}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_opcode: ", "(3,)"});
  file = layout_with("node_opcode", make_array(std::vector<int32_t>{1, 2, 3, 4}, {2, 2}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_opcode: expected 1 dimensions"});
  file = layout_with("node_opcode", make_array(std::vector<float>{1, 2, 3, 4}, {4}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_opcode: ", "integer dtype"});
  file = layout_with("edge_index", make_array(std::vector<int64_t>{2, 0, 2}, {3}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": edge_index: expected 2 dimensions"});
  file = layout_with("edge_index", make_array(std::vector<int64_t>{2, 0, 2, 9}, {2, 2}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": edge_index: ", "node 9"});
  file = layout_with("edge_index", make_array(std::vector<int64_t>{2, 0, -1, 1}, {2, 2}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": edge_index: ", "node -1"});
  file = layout_with("config_runtime", make_array(std::vector<int64_t>{1, 2}, {2}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": config_runtime: ", "should be 3"});
  file = layout_with("node_config_feat", make_array(std::vector<float>(24, 0), {3, 8}));
  expect_error([&] { read_tpugraphs_npz(file); },
               {file + ": node_config_feat: expected 3 dimensions"});
  file = layout_with("node_config_feat", make_array(std::vector<float>(24, 0), {2, 3, 4}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_config_feat: ", "should be 2"});
  file = layout_with("node_splits", make_array(std::vector<int64_t>{0, 2, 3, 4}, {2, 2}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_splits: "});
}

TEST_F(TpuGraphsNpzTest, TileNormalisersMustBePositive) {
  const std::string file = path("zero_normaliser.npz");
  write_tpugraphs_npz(file, tile_record(), {{300, 500}, {100, 0}}, false);
  expect_error([&] { read_tpugraphs_npz(file); },
               {file + ": config_runtime_normalizers: configuration 1 has normaliser 0 (must be "
                       "positive)"});
}

// #40: a negative tile runtime was reported divided by its normaliser (-3 / 100 as -0.03).
TEST_F(TpuGraphsNpzTest, ANegativeTileRuntimeIsReportedAsTheFileHoldsIt) {
  const std::string file = path("negative_runtime.npz");
  write_tpugraphs_npz(file, tile_record(), {{300, -500}, {100, 100}}, false);
  expect_error([&] { read_tpugraphs_npz(file); },
               {file + ": config_runtime: configuration 1 has runtime -500 (must be finite and "
                       "positive)"});
}

TEST_F(TpuGraphsNpzTest, AnEmptyArchiveSaysSo) {
  const std::string file = path("empty.npz");
  {
    NpzWriter writer(file, false);
    writer.commit();
  }
  expect_error([&] { read_tpugraphs_npz(file); },
               {file + ": holds none of the TpuGraphs arrays (node_feat, node_opcode, edge_index, "
                       "config_feat or node_config_feat): an empty archive, or not a TpuGraphs "
                       "file"});
}

TEST_F(TpuGraphsNpzTest, NaNNormaliserIsNamedNotCastToAnInteger) {
  // Float normalisers: a NaN, a negative one and one too large for int64 are reported as the
  // values they are (the message once cast them to int64, undefined behaviour for NaN).
  const std::vector<std::pair<float, std::string>> cases = {
      {std::nanf(""), "nan"}, {-3.0f, "-3"}, {-1e30f, "-1e+30"}};
  for (const auto& [bad, text] : cases) {
    const std::string file = path("float_normaliser.npz");
    write_tpugraphs_npz(file, tile_record(), {{300, 500}, {}}, false);
    {
      NpzReader reader(file);
      NpzWriter writer(file, false);
      for (const std::string& k : reader.keys()) writer.add(k, reader.read(k));
      writer.add("config_runtime_normalizers", make_array(std::vector<float>{100, bad}, {2}));
      writer.commit();
    }
    expect_error([&] { read_tpugraphs_npz(file); },
                 {file + ": config_runtime_normalizers: configuration 1 has normaliser " + text +
                  " (must be positive)"});
  }
}

TEST_F(TpuGraphsNpzTest, FailedFlagsAndDefaultConfigurationRoundTrip) {
  // graphcost's own keys, written by `split`: a record with failures keeps them.
  data::GraphRecord original = tile_record();
  original.configs.failed = {0, 1};
  original.configs.default_config = 1;
  const std::string file = path("with_failures.npz");
  write_tpugraphs_npz(file, original, {{300, 500}, {100, 200}}, true);
  EXPECT_EQ(NpzReader(file).read_header("config_failed").dtype, DType::UInt8);
  data::GraphRecord back = read_tpugraphs_npz(file);
  EXPECT_EQ(back.configs.failed, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(back.configs.default_config, 1);
  // Without failures and default, neither key is written and the record reads as before.
  write_tpugraphs_npz(file, tile_record(), {{300, 500}, {100, 200}}, true);
  EXPECT_FALSE(NpzReader(file).has("config_failed"));
  EXPECT_FALSE(NpzReader(file).has("default_config"));
  back = read_tpugraphs_npz(file);
  EXPECT_TRUE(back.configs.failed.empty());
  EXPECT_EQ(back.configs.default_config, -1);
}

TEST_F(TpuGraphsNpzTest, BadFailedFlagsOrDefaultNameFileAndKey) {
  std::string file = layout_with("config_failed", make_array(std::vector<uint8_t>{0, 2, 0}, {3}));
  expect_error([&] { read_tpugraphs_npz(file); },
               {file + ": config_failed: flag 2 is not 0 or 1"});
  file = layout_with("config_failed", make_array(std::vector<uint8_t>{0, 1}, {2}));
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": config_failed: ", "should be 3"});
  file = layout_with("default_config", make_array(std::vector<int64_t>{3}, {1}));
  expect_error([&] { read_tpugraphs_npz(file); },
               {file + ": default_config: index 3 outside [-1, 3)"});
}

TEST_F(TpuGraphsNpzTest, LayoutValuesMustBeInt8) {
  for (float bad : {0.5f, 300.0f, -129.0f}) {
    std::vector<float> values(24, 1.0f);
    values[13] = bad;
    const std::string file = layout_with("node_config_feat", make_array(values, {3, 2, 4}));
    expect_error([&] { read_tpugraphs_npz(file); }, {file + ": node_config_feat: ", "index 13"});
  }
}

TEST_F(TpuGraphsNpzTest, NeitherKindIsAnError) {
  const std::string file = layout_with("node_config_feat", NpyArray{DType::Float32, {}, {}});
  expect_error([&] { read_tpugraphs_npz(file); }, {file + ": ", "neither config_feat"});
  expect_error([&] { read_tpugraphs_npz(path("nothing.npz")); }, {path("nothing.npz") + ": "});
}

TEST(TpuGraphsNpzRealFile, AlexnetLayout) {
  const std::string file =
      std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "shared data absent: " << file;
  const auto start = std::chrono::steady_clock::now();
  const data::GraphRecord record = read_tpugraphs_npz(file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("read %s in %.3f s\n", file.c_str(), seconds);
  EXPECT_EQ(record.graph.name, "alexnet_layout_reduced");
  EXPECT_EQ(record.graph.num_nodes, 372);
  EXPECT_EQ(record.graph.num_edges(), 597);
  EXPECT_EQ(record.graph.feature_width, 70);
  EXPECT_EQ(record.graph.configurable_nodes.size(), 26u);
  EXPECT_EQ(record.graph.node_splits, (std::vector<int64_t>{0, 324, 372}));
  EXPECT_EQ(record.configs.kind, data::ConfigKind::Layout);
  EXPECT_EQ(record.configs.count, 47712);
  EXPECT_EQ(record.configs.nodes, 26);
  EXPECT_EQ(record.configs.width, 10);
  EXPECT_EQ(record.configs.layout.size(), 47712u * 26 * 10);
  ASSERT_EQ(record.configs.runtimes.size(), 47712u);
  EXPECT_EQ(record.configs.runtimes[0], 79633675.0);
  EXPECT_EQ(record.configs.runtimes[4], 79633130.0);
  EXPECT_EQ(record.graph.operands.offsets.back(), 597);
  // Values as numpy reads them (node_feat is stored in Fortran order in this file).
  const float* row = record.graph.features(100);
  const std::vector<std::pair<int, float>> nonzero = {
      {5, 1},  {8, 32}, {9, 26}, {10, 26}, {11, 192}, {12, 276}, {13, 4153344}, {24, 1},
      {30, 1}, {34, 1}, {38, 1}, {44, 1},  {66, 3},   {67, 2},   {68, 1}};
  std::vector<float> expected_row(70, 0.0f);
  for (const auto& [column, value] : nonzero) expected_row[column] = value;
  EXPECT_EQ(std::vector<float>(row, row + 70), expected_row);
  EXPECT_EQ(record.graph.features(371)[14], 18.0f);
  EXPECT_EQ(record.graph.opcodes[2], 57);
  EXPECT_EQ(record.graph.opcodes[371], 100);
  EXPECT_EQ(std::vector<int32_t>(record.graph.edges.end() - 2, record.graph.edges.end()),
            (std::vector<int32_t>{371, 370}));
  EXPECT_EQ(std::vector<int32_t>(record.graph.configurable_nodes.begin(),
                                 record.graph.configurable_nodes.begin() + 5),
            (std::vector<int32_t>{86, 95, 103, 110, 116}));
  const int8_t* config = record.configs.view().layout_config(100) + 3 * 10;
  EXPECT_EQ(std::vector<int8_t>(config, config + 10),
            (std::vector<int8_t>{3, 0, -1, -1, 3, 0, -1, -1, 3, 2}));
  EXPECT_EQ(record.configs.runtimes.back(), 428670259.0);
}

}  // namespace
}  // namespace graphcost::io
