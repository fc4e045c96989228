// graphcost score through the real binary: a hand-built split of all five collections, two
// submission files whose metrics, Kaggle score and paired comparison are worked out by hand, and
// bad submissions.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../data/test_records.h"
#include "core/atomic_file.h"
#include "data/collection.h"
#include "io/tpugraphs_npz.h"
#include "run_graphcost.h"

namespace graphcost::cli {
namespace {

namespace fs = std::filesystem;
using graphcost::testing::run_graphcost;
using graphcost::testing::Streams;

const std::vector<std::string> kLayoutIds = {"layout:xla:default", "layout:xla:random",
                                             "layout:nlp:default", "layout:nlp:random"};

class ScoreCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("graphcost_score_cli_" + std::to_string(::getpid())))
               .string();
    fs::remove_all(dir_);
    // Layout graphs a (runtimes 30, 20, 10) and b (10, 20, 30) in each layout collection's valid
    // split, and a (no runtimes) in xla:random's test split.
    for (const std::string& id : kLayoutIds) {
      const std::string folder =
          dir_ + "/" + data::CollectionId::parse(id).relative_dir() + "/valid";
      fs::create_directories(folder);
      write_layout(folder + "/a.npz", "a", {30, 20, 10});
      write_layout(folder + "/b.npz", "b", {10, 20, 30});
    }
    fs::create_directories(dir_ + "/npz/layout/xla/random/test");
    write_layout(dir_ + "/npz/layout/xla/random/test/a.npz", "a", {});
    // Tile kernel k: runtimes / normalisers 5, 4, 3, 2, 1, 6.
    data::GraphRecord k = data::testing::small_layout_record();
    k.graph.name = "k";
    k.graph.configurable_nodes.clear();
    k.configs = data::ConfigTable();
    k.configs.kind = data::ConfigKind::Tile;
    k.configs.count = 6;
    k.configs.width = 2;
    k.configs.tile = {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6};
    io::RuntimeColumns runtimes;
    runtimes.runtime_ns = {50, 40, 30, 20, 10, 60};
    runtimes.normalizer_ns.assign(6, 10);
    fs::create_directories(dir_ + "/npz/tile/xla/valid");
    io::write_tpugraphs_npz(dir_ + "/npz/tile/xla/valid/k.npz", k, runtimes, true);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void write_layout(const std::string& path, const std::string& name,
                           const std::vector<int64_t>& runtime_ns) {
    data::GraphRecord r = data::testing::small_layout_record();
    r.graph.name = name;
    io::RuntimeColumns runtimes;
    runtimes.runtime_ns = runtime_ns;
    io::write_tpugraphs_npz(path, r, runtimes, true);
  }
  // A submission ranking a and b of every layout collection and tile kernel k as given.
  std::string submission(const std::string& name, const std::string& a, const std::string& b,
                         const std::string& k) {
    std::string text = "ID,TopConfigs\n";
    for (const std::string& id : kLayoutIds) text += id + ":a," + a + "\n" + id + ":b," + b + "\n";
    text += "tile:xla:k," + k + "\n";
    const std::string path = dir_ + "/" + name;
    write_file_atomically(path, text);
    return path;
  }
  void expect_error(const std::string& args, const std::vector<std::string>& parts) {
    graphcost::testing::expect_error_line("score --data " + dir_ + " " + args, parts);
  }

  std::string dir_;
};

TEST_F(ScoreCli, MetricsKaggleScoreAndPairedComparisonByHand) {
  const std::string oracle = submission("oracle.csv", "2;1;0", "0;1;2", "4;3;2;1;0");
  // a reversed: tau -1. b ranked 0, 2, 1 against runtimes 10, 20, 30: two concordant pairs, one
  // discordant, tau 1/3. Tile: 5 then 0 listed; top-1 runtime 6 (best 1): error 5; top-5 over
  // the two listed: best 5, error 4, Kaggle tile score 2 - 5 = -3.
  const std::string other = submission("other.csv", "0;1;2", "0;2;1", "5;0");
  auto [status, output] =
      run_graphcost("score --json --data " + dir_ + " " + oracle + " " + other, Streams::Stdout)
          .pair();
  ASSERT_EQ(status, 0) << output;
  const nlohmann::json j = nlohmann::json::parse(output);
  const auto& first = j["submissions"][0];
  const auto& second = j["submissions"][1];
  for (const std::string& id : kLayoutIds) {
    EXPECT_DOUBLE_EQ(first["collections"][id]["kendall_tau"].get<double>(), 1.0) << id;
    EXPECT_DOUBLE_EQ(first["collections"][id]["score"].get<double>(), 1.0) << id;
    EXPECT_NEAR(second["collections"][id]["kendall_tau"].get<double>(), (-1.0 + 1.0 / 3) / 2,
                1e-12);
    EXPECT_EQ(second["collections"][id]["graph_count"], 2);
  }
  EXPECT_DOUBLE_EQ(first["collections"]["tile:xla"]["tile_score"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(first["collections"]["tile:xla"]["top1_error"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(second["collections"]["tile:xla"]["top1_error"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(second["collections"]["tile:xla"]["top5_error"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(second["collections"]["tile:xla"]["tile_score"].get<double>(), -3.0);
  EXPECT_DOUBLE_EQ(first["kaggle_score"].get<double>(), 1.0);
  EXPECT_NEAR(second["kaggle_score"].get<double>(), (4 * (-1.0 / 3) - 3.0) / 5, 1e-12);
  // Per graph (--groups 1), other - oracle: a -2, b -2/3; mean -4/3, standard deviation
  // sqrt(8/9), standard error 2/3. Tile: one kernel, -4, no standard error.
  ASSERT_EQ(j["comparisons"].size(), 5u);
  for (const auto& c : j["comparisons"]) {
    if (c["collection"] == "tile:xla") {
      EXPECT_EQ(c["units"], 1);
      EXPECT_DOUBLE_EQ(c["mean_difference"].get<double>(), -4.0);
      EXPECT_TRUE(c["standard_error"].is_null()) << c;
      continue;
    }
    EXPECT_EQ(c["metric"], "kendall_tau");
    EXPECT_EQ(c["units"], 2);
    EXPECT_NEAR(c["mean_difference"].get<double>(), -4.0 / 3, 1e-12);
    EXPECT_NEAR(c["standard_error"].get<double>(), 2.0 / 3, 1e-12);
    EXPECT_EQ(c["wins"], 0);
    EXPECT_EQ(c["losses"], 2);
  }
}

TEST_F(ScoreCli, OneCollectionAndTextOutput) {
  const std::string path = dir_ + "/one.csv";
  write_file_atomically(path,
                        "ID,TopConfigs\nlayout:xla:random:a,2;1;0\nlayout:xla:random:b,2;1;0\n");
  auto [status, output] =
      run_graphcost("score --data " + dir_ + " " + path, Streams::Stdout).pair();
  ASSERT_EQ(status, 0) << output;
  // a: tau 1; b reversed: -1; mean 0. No Kaggle score without all five collections.
  EXPECT_NE(output.find("layout:xla:random: 2 graphs, kendall_tau 0.0000"), std::string::npos)
      << output;
  EXPECT_EQ(output.find("kaggle"), std::string::npos) << output;
}

TEST_F(ScoreCli, BadSubmissionsAreOneClearError) {
  const std::string oracle = submission("oracle.csv", "2;1;0", "0;1;2", "4;3;2;1;0");
  const std::string missing = dir_ + "/missing.csv";
  write_file_atomically(missing, "ID,TopConfigs\nlayout:xla:random:a,2;1;0\n");
  expect_error(missing, {missing, "layout:xla:random:b", "no row"});
  const std::string extra = dir_ + "/extra.csv";
  write_file_atomically(extra,
                        "ID,TopConfigs\nlayout:xla:random:a,2;1;0\nlayout:xla:random:b,0;1;2\n"
                        "layout:xla:random:c,0;1;2\n");
  expect_error(extra, {extra, "ranks 3 graphs", "holds 2"});
  const std::string range = dir_ + "/range.csv";
  write_file_atomically(range,
                        "ID,TopConfigs\nlayout:xla:random:a,3;1;0\nlayout:xla:random:b,0;1;2\n");
  expect_error(range, {range, "layout:xla:random:a", "index 3 is out of range"});
  const std::string partial = dir_ + "/partial.csv";
  write_file_atomically(partial,
                        "ID,TopConfigs\nlayout:xla:random:a,1;0\nlayout:xla:random:b,0;1;2\n");
  expect_error(partial, {partial, "must list all 3"});
  expect_error(oracle + " " + missing, {missing, "missing"});
  expect_error("--split test " + missing, {"a.npz", "no measured runtimes"});
  expect_error(dir_ + "/absent.csv", {"absent.csv"});
  const std::string unknown = dir_ + "/unknown.csv";
  write_file_atomically(unknown, "ID,TopConfigs\nlayout:tpu:random:a,0\n");
  expect_error(unknown, {unknown + ": layout:tpu:random:a"});
}

}  // namespace
}  // namespace graphcost::cli
