// Ingestion of raw tuning records: the two real files in shared/data/tpugraphs/ (expected
// values read off `protoc --decode=graphcost.pb.ModuleTuningData proto/graphcost_tuning.proto`
// and `--decode=graphcost.pb.TuningData`), and broken files built here.
#include "io/tuning_records.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "graphcost_tuning.pb.h"

namespace graphcost::io {
namespace {

std::string shared_file(const std::string& name) {
  return std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/" + name;
}

std::string temp_file(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("graphcost_tuning_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Expects read_tuning_file to throw an Error whose message names the file and contains `text`.
void expect_error(const std::string& path, const std::string& text) {
  try {
    read_tuning_file(path, FeatureSet::Standard);
    FAIL() << "no error for " << path;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(text), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

#define SKIP_WITHOUT(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data absent: " << (path)

std::vector<int8_t> layout_row(const data::ConfigTable& configs, int64_t config, int64_t node) {
  const int8_t* begin = configs.layout.data() + (config * configs.nodes + node) * configs.width;
  return std::vector<int8_t>(begin, begin + configs.width);
}

TEST(TuningRecords, LayoutFileCounts) {
  const std::string path = shared_file("module_tuning_data_layout.pb");
  SKIP_WITHOUT(path);
  const TuningFile file = read_tuning_file(path, FeatureSet::Standard);
  ASSERT_EQ(file.kind, TuningFileKind::Layout);
  ASSERT_EQ(file.graphs.size(), 1u);
  const TuningGraph& tuning = file.graphs[0];
  const data::Graph& graph = tuning.record.graph;
  EXPECT_EQ(graph.name, "module_tuning_data_layout");
  EXPECT_EQ(graph.num_nodes, 3163);
  EXPECT_EQ(graph.num_edges(), 5112);
  EXPECT_EQ(graph.node_splits, (std::vector<int64_t>{0, 449, 453, 467, 471, 498, 502, 3163}));
  ASSERT_EQ(graph.configurable_nodes.size(), 62u);
  int convolutions = 0, reshapes = 0;
  for (const int32_t node : graph.configurable_nodes) {
    convolutions += graph.opcodes[node] == 26;
    reshapes += graph.opcodes[node] == 75;
  }
  EXPECT_EQ(convolutions, 53);
  EXPECT_EQ(reshapes, 9);
  EXPECT_EQ(tuning.runs, 122);
  EXPECT_EQ(tuning.error_runs, 10);
  EXPECT_EQ(tuning.unmeasured_runs, 0);
  EXPECT_EQ(tuning.record.configs.count, 112);
  EXPECT_EQ(tuning.record.configs.nodes, 62);
  EXPECT_EQ(tuning.record.configs.width, 18);
  EXPECT_EQ(tuning.runtimes.runtime_ns.size(), 112u);
  EXPECT_TRUE(tuning.runtimes.normalizer_ns.empty());
  EXPECT_EQ(graph.operands.offsets.size(), 3164u);  // adjacency built
}

TEST(TuningRecords, LayoutFileSpotValues) {
  const std::string path = shared_file("module_tuning_data_layout.pb");
  SKIP_WITHOUT(path);
  const TuningGraph tuning = read_tuning_file(path, FeatureSet::Standard).graphs.at(0);
  const data::Graph& graph = tuning.record.graph;
  // config_index_to_node starts 443, 461, 488, 652, 660 (node positions in proto order).
  EXPECT_EQ(graph.configurable_nodes[0], 443);
  EXPECT_EQ(graph.configurable_nodes[4], 660);
  EXPECT_EQ(graph.configurable_nodes[61], 3143);
  // Node 660 is "convolution.1043" (id 875, operands 873 and 874): bf16[2,96,96,96,32]
  // minor_to_major {4,3,2,1,0}, three window dims {size 3, stride 1, pad 1/1, dilations 1},
  // kernel_input_feature 3, kernel_output_feature 4, kernel_spatial {0,1,2},
  // input/output feature 4, input_spatial {1,2,3}, feature and batch group count 1.
  const float* conv = graph.features(660);
  EXPECT_EQ(graph.opcodes[660], 26);
  EXPECT_EQ(conv[0], 0.0f);
  EXPECT_EQ(conv[15], 1.0f);  // bf16
  EXPECT_EQ(conv[13], 0.0f);  // not f32
  EXPECT_EQ(std::vector<float>(conv + 21, conv + 29),
            (std::vector<float>{2, 96, 96, 96, 32, 0, 322, 56623104}));
  EXPECT_EQ(std::vector<float>(conv + 37, conv + 45),
            (std::vector<float>{3, 3, 3, 0, 0, 0, 9, 27}));
  EXPECT_EQ(std::vector<float>(conv + 53, conv + 61), (std::vector<float>{1, 1, 1, 0, 0, 0, 3, 1}));
  EXPECT_EQ(conv[91], 0.0f);  // reversal: 0 true
  EXPECT_EQ(conv[92], 3.0f);  // 3 false
  EXPECT_EQ(std::vector<float>(conv + 93, conv + 107),
            (std::vector<float>{0, 4, 1, 2, 3, 0, 3, 4, 0, 1, 2, 0, 0, 4}));
  EXPECT_EQ(conv[107], 1.0f);
  EXPECT_EQ(conv[108], 1.0f);
  EXPECT_EQ(conv[112], 1.0f);  // empty slice list: product 1
  EXPECT_EQ(std::vector<float>(conv + 134, conv + 140), (std::vector<float>{4, 3, 2, 1, 0, 0}));
  // Its operands: id 873 "convert.1042" is node 657, id 874 "convert.866" is node 659 (node 658
  // is get-tuple-element.246, id 528).
  const auto begin = graph.operands.offsets[660], end = graph.operands.offsets[661];
  EXPECT_EQ(std::vector<int32_t>(graph.operands.indices.begin() + begin,
                                 graph.operands.indices.begin() + end),
            (std::vector<int32_t>{657, 659}));

  const data::ConfigTable& configs = tuning.record.configs;
  // Configuration 0 = run 0 (the default, 910903932 ns). Its first four nodes have empty
  // tensor layouts; node slot 4 has tensors {4,0}, {4,0}, {4,3}.
  EXPECT_EQ(tuning.runtimes.runtime_ns[0], 910903932);
  EXPECT_EQ(configs.runtimes[0], 910903932.0);
  EXPECT_EQ(layout_row(configs, 0, 0), std::vector<int8_t>(18, -1));
  EXPECT_EQ(layout_row(configs, 0, 4), (std::vector<int8_t>{4, 0, -1, -1, -1, -1, 4, 0, -1, -1, -1,
                                                            -1, 4, 3, -1, -1, -1, -1}));
  // Runs 6 and 15 are errors: configuration 6 is run 7, configuration 14 is run 16.
  EXPECT_EQ(tuning.runtimes.runtime_ns[5], 910917258);
  EXPECT_EQ(tuning.runtimes.runtime_ns[6], 910910432);
  EXPECT_EQ(tuning.runtimes.runtime_ns[14], 910897160);
  // The last configuration is run 121 (910906155 ns); its node slot 61 has tensors {2,0,1}
  // and {3,1,2,0}, no third.
  EXPECT_EQ(tuning.runtimes.runtime_ns[111], 910906155);
  EXPECT_EQ(layout_row(configs, 111, 61),
            (std::vector<int8_t>{2, 0, 1, -1, -1, -1, 3, 1, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1}));
}

TEST(TuningRecords, TileFileCountsAndSpotValues) {
  const std::string path = shared_file("op_tuning_data.pb");
  SKIP_WITHOUT(path);
  const TuningFile file = read_tuning_file(path, FeatureSet::Standard);
  ASSERT_EQ(file.kind, TuningFileKind::Tile);
  ASSERT_EQ(file.graphs.size(), 15u);
  int64_t runs = 0, errors = 0, configurations = 0;
  for (const auto& tuning : file.graphs) {
    runs += tuning.runs;
    errors += tuning.error_runs;
    configurations += tuning.record.configs.count;
    EXPECT_EQ(tuning.record.configs.width, 24);
    EXPECT_TRUE(tuning.record.graph.configurable_nodes.empty());
    EXPECT_EQ(tuning.runtimes.normalizer_ns.size(), tuning.runtimes.runtime_ns.size());
  }
  EXPECT_EQ(runs, 754);
  EXPECT_EQ(errors, 2);
  EXPECT_EQ(configurations, 752);

  // Module 0 "fusion.232": 20 instructions; run 0 is the default (57188 ns) with
  // output_bounds {2, 26, 4, 2} and no kernel or input bounds.
  const TuningGraph& first = file.graphs[0];
  EXPECT_EQ(first.record.graph.name, "fusion.232");
  EXPECT_EQ(first.record.graph.num_nodes, 20);
  EXPECT_EQ(first.runs, 61);
  EXPECT_EQ(first.runtimes.runtime_ns[0], 57188);
  EXPECT_EQ(first.runtimes.normalizer_ns[0], 57188);
  EXPECT_EQ(first.record.configs.runtimes[0], 1.0);
  EXPECT_EQ(
      std::vector<float>(first.record.configs.tile.begin(), first.record.configs.tile.begin() + 24),
      (std::vector<float>{0, 0, 0,  0,   0, 0, 0, 0, 2, 26, 4, 2,
                          0, 0, 34, 416, 0, 0, 0, 0, 0, 0,  0, 0}));

  // Module 1 "fusion.191": 581 runs, runs 575 and 579 are errors, default run 0 = 151565 ns.
  // Configuration 575 is run 576: kernel {2,3,24,3}, output {4,12,2,3}, 199261 ns.
  const TuningGraph& second = file.graphs[1];
  EXPECT_EQ(second.record.graph.name, "fusion.191");
  EXPECT_EQ(second.runs, 581);
  EXPECT_EQ(second.error_runs, 2);
  EXPECT_EQ(second.record.configs.count, 579);
  EXPECT_EQ(second.runtimes.runtime_ns[574], 263088);
  EXPECT_EQ(second.runtimes.runtime_ns[575], 199261);
  EXPECT_EQ(second.runtimes.normalizer_ns[575], 151565);
  EXPECT_DOUBLE_EQ(second.record.configs.runtimes[575], 199261.0 / 151565.0);
  const float* tile = second.record.configs.tile.data() + 575 * 24;
  EXPECT_EQ(std::vector<float>(tile, tile + 24),
            (std::vector<float>{2, 3, 24, 3,   0, 0, 32, 432, 4, 12, 2, 3,
                                0, 0, 21, 288, 0, 0, 0,  0,   0, 0,  0, 0}));

  // Module 6 "copy.24": parameter.0 -> copy.24 (root), bf16[32,5,5,256], the copy with
  // minor_to_major {3,2,1,0}, the parameter {3,0,2,1}; default run 3967 ns.
  const TuningGraph& copy = file.graphs[6];
  const data::Graph& graph = copy.record.graph;
  EXPECT_EQ(graph.name, "copy.24");
  EXPECT_EQ(graph.opcodes, (std::vector<int32_t>{63, 27}));
  EXPECT_EQ(graph.edges, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(graph.node_splits, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(graph.features(1)[0], 1.0f);
  EXPECT_EQ(graph.features(0)[0], 0.0f);
  EXPECT_EQ(std::vector<float>(graph.features(1) + 21, graph.features(1) + 29),
            (std::vector<float>{32, 5, 5, 256, 0, 0, 298, 204800}));
  EXPECT_EQ(std::vector<float>(graph.features(1) + 134, graph.features(1) + 140),
            (std::vector<float>{3, 2, 1, 0, 0, 0}));
  EXPECT_EQ(std::vector<float>(graph.features(0) + 134, graph.features(0) + 140),
            (std::vector<float>{3, 0, 2, 1, 0, 0}));
  EXPECT_EQ(copy.runtimes.runtime_ns[1], 9352);
  EXPECT_EQ(copy.runtimes.normalizer_ns[1], 3967);
}

TEST(TuningRecords, RecordsForLoaders) {
  const std::string path = shared_file("op_tuning_data.pb");
  SKIP_WITHOUT(path);
  const auto records = read_tuning_records(path, FeatureSet::Extended);
  ASSERT_EQ(records.size(), 15u);
  EXPECT_EQ(records[0].graph.feature_width, 176);
  EXPECT_EQ(records[0].source, path);
  EXPECT_EQ(records[0].configs.kind, data::ConfigKind::Tile);
}

TEST(TuningRecords, TruncatedFileIsAnError) {
  const std::string path = shared_file("module_tuning_data_layout.pb");
  SKIP_WITHOUT(path);
  const std::string bytes = file_bytes(path);
  expect_error(temp_file("half.pb", bytes.substr(0, bytes.size() / 2)), "not a TpuGraphs");
  expect_error(temp_file("cut.pb", bytes.substr(0, bytes.size() - 3)), "not a TpuGraphs");
  const std::string tile = file_bytes(shared_file("op_tuning_data.pb"));
  expect_error(temp_file("tile_cut.pb", tile.substr(0, tile.size() - 100)), "not a TpuGraphs");
}

TEST(TuningRecords, AnyTruncationGivesAnErrorOrFewerModules) {
  // Cut anywhere, a file must give an Error or (cut exactly between module records) a valid
  // shorter TuningData; never a crash or another exception type.
  const std::string path = shared_file("op_tuning_data.pb");
  SKIP_WITHOUT(path);
  const std::string bytes = file_bytes(path);
  const std::string cut_path = temp_file("cut_anywhere.pb", "");
  int errors = 0;
  for (size_t length = 1; length < bytes.size(); length += 997) {
    std::ofstream(cut_path, std::ios::binary | std::ios::trunc) << bytes.substr(0, length);
    try {
      const TuningFile file = read_tuning_file(cut_path, FeatureSet::Standard);
      EXPECT_LT(file.graphs.size(), 15u) << length;
    } catch (const Error&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 50);
}

TEST(TuningRecords, ForeignEmptyAndMissingFilesAreErrors) {
  const std::string npz = shared_file("alexnet_layout_reduced.npz");
  SKIP_WITHOUT(npz);
  expect_error(npz, "not a TpuGraphs");
  expect_error(temp_file("empty.pb", ""), "empty");
  expect_error(temp_file("text.pb", "hello, this is text\n"), "not a TpuGraphs");
  expect_error("/nonexistent/graphcost.pb", "cannot open");
}

// A layout record built in memory: one computation of three instructions, one run per entry
// of `runs` (runtime, is_default, error).
struct Run {
  int64_t runtime_ns;
  bool is_default;
  bool error;
};

pb::ModuleTuningData small_layout_record(const std::vector<Run>& runs) {
  pb::ModuleTuningData data;
  auto* computation = data.mutable_module()->add_computations();
  computation->set_name("main");
  computation->set_root_id(3);
  for (int id = 1; id <= 3; ++id) {
    auto* instruction = computation->add_instructions();
    instruction->set_id(id);
    instruction->set_opcode(id == 3 ? "convolution" : "parameter");
  }
  computation->mutable_instructions(2)->add_operand_ids(1);
  computation->mutable_instructions(2)->add_operand_ids(2);
  data.add_config_index_to_node(2);
  for (const Run& run : runs) {
    auto* profile = data.add_runs();
    auto* tensor =
        profile->mutable_module_config()->mutable_layout_config()->add_nodes()->add_tensors();
    tensor->add_dims(1);
    tensor->add_dims(0);
    profile->mutable_profile()->set_compute_time_ns(run.runtime_ns);
    profile->set_is_default(run.is_default);
    profile->set_error(run.error);
  }
  return data;
}

TEST(TuningRecords, SmallLayoutRecord) {
  const auto data = small_layout_record({{50, false, false}, {0, false, true}, {40, true, false}});
  const std::string path = temp_file("small.pb", data.SerializeAsString());
  const TuningFile file = read_tuning_file(path, FeatureSet::Standard);
  ASSERT_EQ(file.kind, TuningFileKind::Layout);
  const TuningGraph& tuning = file.graphs.at(0);
  EXPECT_EQ(tuning.record.graph.configurable_nodes, (std::vector<int32_t>{2}));
  EXPECT_EQ(tuning.runtimes.runtime_ns, (std::vector<int64_t>{50, 40}));
  EXPECT_EQ(tuning.record.configs.runtimes, (std::vector<double>{50, 40}));
  EXPECT_EQ(
      layout_row(tuning.record.configs, 1, 0),
      (std::vector<int8_t>{1, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}));
}

TEST(TuningRecords, LayoutOfMoreThanSixDimensionsIsAnError) {
  auto data = small_layout_record({{50, true, false}});
  auto* tensor = data.mutable_runs(0)->mutable_module_config()->mutable_layout_config()
                     ->mutable_nodes(0)->mutable_tensors(0);
  for (int d = 2; d < 7; ++d) tensor->add_dims(d);  // 1, 0, 2, 3, 4, 5, 6: seven dimensions
  expect_error(temp_file("seven.pb", data.SerializeAsString()),
               "runs[0]: configurable node 0, tensor 0: a layout of 7 dimensions (the layout "
               "features hold at most 6)");
  // Six dimensions still fit.
  data = small_layout_record({{50, true, false}});
  tensor = data.mutable_runs(0)->mutable_module_config()->mutable_layout_config()
               ->mutable_nodes(0)->mutable_tensors(0);
  for (int d = 2; d < 6; ++d) tensor->add_dims(d);
  const TuningFile file =
      read_tuning_file(temp_file("six.pb", data.SerializeAsString()), FeatureSet::Standard);
  EXPECT_EQ(layout_row(file.graphs[0].record.configs, 0, 0),
            (std::vector<int8_t>{1, 0, 2, 3, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}));
}

TEST(TuningRecords, UnknownOpcodesWarnOncePerFileOrAreRefused) {
  auto data = small_layout_record({{50, true, false}});
  auto* computation = data.mutable_module()->mutable_computations(0);
  computation->mutable_instructions(0)->set_opcode("frobnicate");
  computation->mutable_instructions(0)->set_name("frob.1");
  computation->mutable_instructions(1)->set_opcode("frobnicate");
  const std::string path = temp_file("unknown.pb", data.SerializeAsString());
  ::testing::internal::CaptureStderr();
  const TuningFile file = read_tuning_file(path, FeatureSet::Standard);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(file.unknown_opcodes, 2);
  EXPECT_EQ(file.graphs[0].record.graph.opcodes[0], 0);
  EXPECT_EQ(warnings, "graphcost: warning: " + path +
                          ": 2 instruction(s) with opcodes the dataset does not know, e.g. "
                          "'frobnicate' (instruction frob.1); they get opcode id 0 (--strict "
                          "refuses them)\n");
  try {
    read_tuning_file(path, FeatureSet::Standard, UnknownOpcodes::Refuse);
    FAIL() << "an unknown opcode was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path +
                                         ": opcode 'frobnicate' (instruction frob.1) is not in "
                                         "the dataset's opcode table");
  }
  // A file without unknown opcodes prints nothing.
  ::testing::internal::CaptureStderr();
  read_tuning_file(temp_file("known.pb", small_layout_record({{50, true, false}}).SerializeAsString()),
                   FeatureSet::Standard);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(TuningRecords, NoDefaultRunIsAnError) {
  // The only default run failed, so nothing can normalise the runtimes.
  const auto data = small_layout_record({{50, false, false}, {0, true, true}});
  expect_error(temp_file("nodefault.pb", data.SerializeAsString()), "is_default");
}

TEST(TuningRecords, ConfigIndexOutOfRangeIsAnError) {
  auto data = small_layout_record({{50, true, false}});
  data.set_config_index_to_node(0, 3);  // three nodes: 0, 1, 2
  expect_error(temp_file("range.pb", data.SerializeAsString()), "config_index_to_node[0]");
}

TEST(TuningRecords, RunWithWrongNodeCountIsAnError) {
  auto data = small_layout_record({{50, true, false}});
  data.add_config_index_to_node(1);
  expect_error(temp_file("nodes.pb", data.SerializeAsString()), "runs[0]");
}

}  // namespace
}  // namespace graphcost::io
