// A collection or split folder (npz/tile/xla, npz/layout/nlp/random/valid) names its collection:
// inspect, train and xgb train take the id from it when none is given, and asking for another
// one is a clear error rather than a run, report or submission under the wrong name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/atomic_file.h"
#include "run_graphcost.h"

namespace {

using graphcost::testing::expect_error_line;
using graphcost::testing::run_graphcost;
using graphcost::testing::Streams;

namespace fs = std::filesystem;

class CollectionFolderCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_collection_folder_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const std::string plan = (root_ / "plan.json").string();
    std::ofstream(plan) << R"([
      {"collection": "tile:xla", "files": [2, 1, 0], "nodes": [40, 60], "configs": [12, 12],
       "configurable_fraction": [0.1, 0.1]},
      {"collection": "layout:nlp:random", "files": [2, 1, 0], "nodes": [130, 160],
       "configs": [10, 10], "configurable_fraction": [0.1, 0.1]}])";
    std::string output;
    ASSERT_EQ(run_graphcost("synth --out " + data() + " --plan " + plan + " --seed 5 --threads 1",
                            &output),
              0)
        << output;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static std::string data() { return (root_ / "data").string(); }
  static std::string tile() { return data() + "/npz/tile/xla"; }
  static std::string nlp() { return data() + "/npz/layout/nlp/random"; }
  static std::string run_dir(const std::string& name) { return (root_ / name).string(); }

  static nlohmann::json inspect(const std::string& path) {
    auto [status, out] = run_graphcost("inspect " + path + " --json", Streams::Stdout).pair();
    EXPECT_EQ(status, 0) << path << ": " << out;
    return status == 0 ? nlohmann::json::parse(out) : nlohmann::json::array();
  }

  static inline fs::path root_;
};

TEST_F(CollectionFolderCli, InspectNamesTheFoldersCollection) {
  // A tile collection folder used to be read as layout:xla:default and failed. Its test folder
  // (synth writes it, empty here) is skipped with a note.
  ASSERT_TRUE(fs::is_directory(tile() + "/test"));
  const nlohmann::json t = inspect(tile());
  ASSERT_EQ(t.size(), 2u) << t;
  EXPECT_EQ(t[0]["collection"], "tile:xla");
  EXPECT_EQ(t[0]["split"], "train");
  EXPECT_EQ(t[0]["files"], 2);
  EXPECT_EQ(t[1]["split"], "valid");
  // Collection and split folders of a layout collection: its own id, not layout:xla:default.
  for (const std::string& path : {nlp(), nlp() + "/", nlp() + "/valid"}) {
    const nlohmann::json l = inspect(path);
    ASSERT_FALSE(l.empty()) << path;
    EXPECT_EQ(l[0]["collection"], "layout:nlp:random") << path;
  }
  // An explicit id that contradicts the folder is an error naming both.
  expect_error_line("inspect " + nlp() + " --collection layout:xla:default",
                    {nlp(), "layout:nlp:random", "layout:xla:default"});
}

TEST_F(CollectionFolderCli, TrainAndEvalTakeTheFoldersCollection) {
  const std::string run = run_dir("run");
  std::string output;
  ASSERT_EQ(run_graphcost("train --data " + nlp() + " --out " + run +
                              " --iterations 2 --graphs-per-batch 2 --slate-size 4 --hidden 8 8"
                              " --threads 1 --valid-split valid",
                          &output),
            0)
      << output;
  const auto config = nlohmann::json::parse(graphcost::read_file(run + "/config.json"));
  EXPECT_EQ(config.at("collection"), "layout:nlp:random");  // the train default is layout:xla:random
  EXPECT_NE(output.find("train: layout:nlp:random: 2 training graphs, 1 validation graphs"),
            std::string::npos)
      << output;
  // eval and predict default to the run's collection, which the folder agrees with.
  output.clear();
  EXPECT_EQ(run_graphcost("eval --model " + run + " --data " + nlp() + " --split valid", &output), 0)
      << output;
  // Another collection asked for, explicitly or as a run's: one error line, nothing written.
  const std::string other = run_dir("other");
  expect_error_line("train --data " + nlp() + " --collection layout:xla:default --out " + other +
                        " --iterations 1 --threads 1",
                    {nlp(), "is a folder of collection layout:nlp:random",
                     "but collection layout:xla:default was asked"});
  EXPECT_FALSE(fs::exists(other + "/model.pt"));
  // A training split's folder with the default validation split used to validate on itself.
  expect_error_line("train --data " + nlp() + "/train --out " + other + " --iterations 1 --threads 1",
                    {nlp() + "/train", "is a train split folder, but split valid was asked"});
  EXPECT_FALSE(fs::exists(other + "/model.pt"));
  output.clear();
  EXPECT_EQ(run_graphcost("train --data " + nlp() + "/train --valid-split '' --out " + other +
                              " --iterations 1 --graphs-per-batch 1 --slate-size 4 --hidden 8 8"
                              " --threads 1",
                          &output),
            0)
      << output;
  expect_error_line("eval --model " + run + " --data " + tile() + " --split valid",
                    {tile(), "tile:xla", "layout:nlp:random"});
}

TEST_F(CollectionFolderCli, XgbTrainTakesTheFoldersCollection) {
  const std::string run = run_dir("xgb");
  std::string output;
  ASSERT_EQ(run_graphcost("xgb train --data " + nlp() + " --out " + run + " --rounds 2", &output),
            0)
      << output;
  const auto config = nlohmann::json::parse(graphcost::read_file(run + "/config.json"));
  EXPECT_EQ(config.at("collection"), "layout:nlp:random");  // the xgb default is tile:xla
}

}  // namespace
