#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "synth/dataset.h"
#include "io/npz.h"
#include "io/tpugraphs_npz.h"

namespace graphcost::synth {
namespace {

namespace fs = std::filesystem;

std::string temp_root(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("graphcost_synth_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  return dir.string();
}

std::vector<CollectionPlan> tiny_plan() {
  CollectionPlan tile;
  tile.id.kind = data::ConfigKind::Tile;
  tile.id.space = "xla";
  tile.id.search = "";
  tile.files[0] = 2;
  tile.files[1] = 1;
  tile.files[2] = 1;
  tile.min_nodes = 10;
  tile.max_nodes = 30;
  tile.min_configs = 20;
  tile.max_configs = 40;
  CollectionPlan layout;
  layout.id.kind = data::ConfigKind::Layout;
  layout.id.space = "xla";
  layout.id.search = "random";
  layout.files[0] = 1;
  layout.files[1] = 1;
  layout.files[2] = 1;
  layout.min_nodes = 200;
  layout.max_nodes = 300;
  layout.min_configs = 20;
  layout.max_configs = 30;
  layout.min_fraction = 0.03;
  layout.max_fraction = 0.05;
  return {tile, layout};
}

SynthOptions tiny_options(const std::string& out, int threads) {
  SynthOptions options;
  options.out = out;
  options.seed = 5;
  options.threads = threads;
  options.compress = false;
  options.plan = tiny_plan();
  return options;
}

TEST(SynthDataset, ParseScale) {
  EXPECT_EQ(parse_scale("small"), Scale::Small);
  EXPECT_EQ(parse_scale("large"), Scale::Large);
  try {
    parse_scale("tiny");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("valid: small, medium, large"), std::string::npos);
  }
}

TEST(SynthDataset, ScalesPlanAllFiveCollections) {
  for (Scale scale : {Scale::Small, Scale::Medium, Scale::Large}) {
    const auto plan = plan_for_scale(scale);
    ASSERT_EQ(plan.size(), 5u);
    const auto files = plan_files(plan, 1);
    for (const PlannedFile& f : files) {
      const CollectionPlan& c = plan[f.collection];
      ASSERT_GE(f.nodes, c.min_nodes);
      ASSERT_LE(f.nodes, c.max_nodes);
      ASSERT_LE(f.configs, c.max_configs);
    }
  }
  EXPECT_EQ(plan_files(plan_for_scale(Scale::Small), 1).size(), 56u + 4 * 10u);
}

TEST(SynthDataset, WritesTheNpzLayoutIndependentOfThreads) {
  const std::string one = temp_root("one"), three = temp_root("three");
  const auto written = write_synthetic_dataset(tiny_options(one, 1));
  write_synthetic_dataset(tiny_options(three, 3));
  ASSERT_EQ(written.size(), 7u);
  for (const SynthFileSummary& f : written) {
    const std::string dir = f.collection == "tile:xla" ? "npz/tile/xla" : "npz/layout/xla/random";
    const std::string relative = dir + "/" + f.split + "/" + f.name + ".npz";
    const data::GraphRecord a = io::read_tpugraphs_npz(one + "/" + relative);
    const data::GraphRecord b = io::read_tpugraphs_npz(three + "/" + relative);
    EXPECT_EQ(a.graph.num_nodes, f.nodes);
    EXPECT_EQ(a.configs.count, f.configs);
    EXPECT_EQ(a.graph.node_features, b.graph.node_features);
    EXPECT_EQ(a.graph.edges, b.graph.edges);
    EXPECT_EQ(a.configs.layout, b.configs.layout);
    EXPECT_EQ(a.configs.tile, b.configs.tile);
    EXPECT_EQ(a.configs.runtimes, b.configs.runtimes);
    if (f.split == "test") {
      EXPECT_TRUE(a.configs.runtimes.empty());
      const std::string answers = one + "/answers/" + relative.substr(4);
      io::NpzReader reader(answers);
      EXPECT_EQ(reader.read("config_runtime").dim(0), f.configs);
      EXPECT_EQ(reader.has("config_runtime_normalizers"), f.collection == "tile:xla");
      EXPECT_FALSE(reader.has("node_feat"));
    } else {
      EXPECT_EQ(static_cast<int64_t>(a.configs.runtimes.size()), f.configs);
    }
  }
  const auto report = nlohmann::json::parse(read_file(one + "/synth_report.json"));
  EXPECT_EQ(report["seed"], 5);
  EXPECT_EQ(report["collections"]["tile:xla"]["train"]["files"], 2);
  EXPECT_EQ(report["collections"]["layout:xla:random"]["test"]["files"], 1);
  EXPECT_EQ(read_file(one + "/synth_report.json"), read_file(three + "/synth_report.json"));
}

TEST(SynthDataset, FilesHoldWhatTheGeneratorMadeInMemory) {
  const std::string root = temp_root("round_trip");
  write_synthetic_dataset(tiny_options(root, 2));
  const std::vector<CollectionPlan> plan = tiny_plan();
  for (const PlannedFile& file : plan_files(plan, 5)) {
    const CollectionPlan& collection = plan[file.collection];
    const SynthGraph expected = generate_file(collection, file, 0.01);
    const std::string dir =
        collection.id.kind == data::ConfigKind::Tile ? "npz/tile/xla" : "npz/layout/xla/random";
    const data::GraphRecord read = io::read_tpugraphs_npz(
        root + "/" + dir + "/" + split_names()[file.split] + "/" + file.name + ".npz");
    const data::Graph& g = expected.record.graph;
    EXPECT_EQ(read.graph.opcodes, g.opcodes);
    EXPECT_EQ(read.graph.node_features, g.node_features);
    EXPECT_EQ(read.graph.edges, g.edges);
    EXPECT_EQ(read.graph.node_splits, g.node_splits);
    EXPECT_EQ(read.graph.configurable_nodes, g.configurable_nodes);
    EXPECT_EQ(read.configs.layout, expected.record.configs.layout);
    EXPECT_EQ(read.configs.tile, expected.record.configs.tile);
    if (file.split != 2) {
      EXPECT_EQ(read.configs.runtimes, expected.record.configs.runtimes);
    }
  }
}

// --terms: each layout file's noiseless runtime by cost term beside the dataset, which is the same
// as without them; the terms add up to the generator's noiseless runtimes.
TEST(SynthDataset, TermsAddUpToTheNoiselessRuntimes) {
  const std::string plain = temp_root("plain"), with_terms = temp_root("terms");
  write_synthetic_dataset(tiny_options(plain, 1));
  SynthOptions options = tiny_options(with_terms, 2);
  options.terms = true;
  write_synthetic_dataset(options);
  EXPECT_FALSE(fs::exists(plain + "/terms"));
  EXPECT_FALSE(fs::exists(with_terms + "/terms/tile"));  // layout only
  const std::vector<CollectionPlan> plan = tiny_plan();
  int layout_files = 0;
  for (const PlannedFile& file : plan_files(plan, 5)) {
    const CollectionPlan& collection = plan[file.collection];
    if (collection.id.kind != data::ConfigKind::Layout) continue;
    ++layout_files;
    const std::string below = "layout/xla/random/" + split_names()[file.split] + "/" + file.name;
    const data::GraphRecord a = io::read_tpugraphs_npz(plain + "/npz/" + below + ".npz");
    const data::GraphRecord b = io::read_tpugraphs_npz(with_terms + "/npz/" + below + ".npz");
    EXPECT_EQ(a.graph.node_features, b.graph.node_features);
    EXPECT_EQ(a.configs.layout, b.configs.layout);
    EXPECT_EQ(a.configs.runtimes, b.configs.runtimes);
    const SynthGraph expected = generate_file(collection, file, 0.01);
    io::NpzReader reader(with_terms + "/terms/" + below + ".npz");
    const std::vector<double> fixed = reader.read("fixed_ns").to_vector<double>("fixed_ns");
    const std::vector<double> nodes = reader.read("nodes_ns").to_vector<double>("nodes_ns");
    const std::vector<double> followers =
        reader.read("followers_ns").to_vector<double>("followers_ns");
    const std::vector<double> copies = reader.read("copies_ns").to_vector<double>("copies_ns");
    const std::vector<double> noiseless =
        reader.read("noiseless_ns").to_vector<double>("noiseless_ns");
    EXPECT_EQ(noiseless, expected.noiseless);
    ASSERT_EQ(fixed.size(), 1u);
    ASSERT_EQ(nodes.size(), expected.noiseless.size());
    for (size_t j = 0; j < nodes.size(); ++j) {
      EXPECT_GT(nodes[j], 0.0);
      EXPECT_NEAR(fixed[0] + nodes[j] + followers[j] + copies[j], noiseless[j], 1e-9 * noiseless[j])
          << j;
    }
  }
  EXPECT_EQ(layout_files, 3);
  const auto report = nlohmann::json::parse(read_file(with_terms + "/synth_report.json"));
  EXPECT_TRUE(report.contains("terms"));
}

TEST(SynthDataset, RefusesAnExistingDatasetUnlessOverwrite) {
  const std::string root = temp_root("again");
  SynthOptions options = tiny_options(root, 2);
  write_synthetic_dataset(options);
  EXPECT_THROW(write_synthetic_dataset(options), Error);
  options.overwrite = true;
  EXPECT_EQ(write_synthetic_dataset(options).size(), 7u);
}

}  // namespace
}  // namespace graphcost::synth
