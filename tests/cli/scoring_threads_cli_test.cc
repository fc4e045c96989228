// eval and predict score a collection's graphs one per core: their output must not depend on
// --threads. Through the real binary, on small synthetic layout and tile collections, with a
// neural run alone, an attention run (anchored scores), a run trained by segments (GST), a neural
// + XGBoost ensemble, and MC dropout (which stays on one thread).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../io/temp_dir.h"
#include "core/atomic_file.h"
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;
namespace fs = std::filesystem;

class ScoringThreadsCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_scoring_threads_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const std::string plan = (root_ / "plan.json").string();
    std::ofstream(plan) << R"([
      {"collection": "layout:xla:random", "files": [3, 0, 5], "nodes": [130, 160],
       "configs": [14, 20], "configurable_fraction": [0.1, 0.1]},
      {"collection": "tile:xla", "files": [3, 0, 7], "nodes": [20, 30],
       "configs": [10, 16], "configurable_fraction": [0.1, 0.1]}])";
    std::string output;
    ASSERT_EQ(run_graphcost("synth --out " + data() + " --plan " + plan + " --seed 4 --threads 1",
                            &output),
              0)
        << output;
    for (const std::string collection : {"layout:xla:random", "tile:xla"}) {
      const std::string common = " --data " + data() + " --collection " + collection +
                                 " --valid-split '' --threads 1";
      const std::string train = "train" + common +
                                " --iterations 4 --graphs-per-batch 2 --slate-size 6 --hidden 8 8";
      ASSERT_EQ(run_graphcost(train + " --dropout 0.2 --out " + run(collection, "nn"), &output), 0)
          << output;
      ASSERT_EQ(run_graphcost(train + " --attention --out " + run(collection, "att"), &output), 0)
          << output;
      ASSERT_EQ(run_graphcost(train + " --gst-segment-nodes 60 --out " + run(collection, "gst"),
                              &output),
                0)
          << output;
      ASSERT_EQ(run_graphcost("xgb train --data " + data() + " --collection " + collection +
                                  " --rounds 5 --threads 1 --out " + run(collection, "xgb"),
                              &output),
                0)
          << output;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static std::string data() { return (root_ / "data").string(); }
  static std::string run(const std::string& collection, const std::string& name) {
    return (root_ / (collection.substr(0, collection.find(':')) + "_" + name)).string();
  }
  // The submission predict writes for the test split with these runs and thread count.
  static std::string predict(const std::string& collection, const std::string& runs, int threads,
                             const std::string& extra = "") {
    const std::string out =
        (root_ / ("submission_" + std::to_string(threads) + ".csv")).string();
    std::string output;
    EXPECT_EQ(run_graphcost("predict --data " + data() + " --collection " + collection +
                                " --split test --threads " + std::to_string(threads) + " " + runs +
                                " " + extra + " --out " + out,
                            &output),
              0)
        << output;
    return graphcost::read_file(out);
  }
  static std::string eval_json(const std::string& collection, const std::string& runs,
                               int threads, const std::string& extra = "") {
    auto [status, output] =
        run_graphcost("eval --data " + data() + " --collection " + collection +
                          " --split test --json --threads " + std::to_string(threads) + " " +
                          runs + " " + extra,
                      graphcost::testing::Streams::Stdout);
    EXPECT_EQ(status, 0) << output;
    return output;
  }

  static fs::path root_;
};

fs::path ScoringThreadsCli::root_;

TEST_F(ScoringThreadsCli, PredictAndEvalDoNotDependOnTheThreadCount) {
  for (const std::string collection : {"layout:xla:random", "tile:xla"}) {
    SCOPED_TRACE(collection);
    const std::string nn = "--model " + run(collection, "nn");
    const std::string att = "--model " + run(collection, "att");
    const std::string mixed = nn + " --model " + run(collection, "xgb") + " " + att;
    const std::string gst = "--model " + run(collection, "gst");  // scored by segments
    for (const std::string& runs : {nn, att, mixed, gst}) {
      SCOPED_TRACE(runs);
      const std::string one = predict(collection, runs, 1);
      // A line per test graph after the header (5 layout, 7 tile graphs).
      EXPECT_EQ(std::count(one.begin(), one.end(), '\n'),
                collection == "tile:xla" ? 1 + 7 : 1 + 5)
          << one;
      // 3 threads over 5 or 7 graphs: uneven shares and more workers than one per core.
      EXPECT_EQ(predict(collection, runs, 3), one);
      const std::string metrics = eval_json(collection, runs, 1, "--max-configs 9");
      ASSERT_NE(metrics.find("graph_count"), std::string::npos) << metrics;
      EXPECT_EQ(eval_json(collection, runs, 3, "--max-configs 9"), metrics);
    }
    // MC dropout scores on the calling thread, in graph order: the same draws for any count.
    const std::string mc = eval_json(collection, nn, 1, "--mc-samples 3 --seed 2");
    ASSERT_NE(mc.find("mc_mean_std"), std::string::npos) << mc;
    EXPECT_EQ(eval_json(collection, nn, 3, "--mc-samples 3 --seed 2"), mc);
  }
}

// A collection of one graph is scored on the calling thread; it too runs at one intra-op thread
// (model::run_apart), or a graph of this size differs in its last bits between --threads 1 and 2
// (it did, by up to 7.6e-6, before). The model is the default one, wide enough for LibTorch to
// split its products over threads.
TEST(ScoringThreadsOneGraph, ScoresDoNotDependOnTheThreadCount) {
  const graphcost::TempDir dir;  // removed also when an assertion ends the test early
  const fs::path root = dir.path();
  const std::string plan = (root / "plan.json").string();
  std::ofstream(plan) << R"([{"collection": "layout:xla:random", "files": [1, 0, 1],
    "nodes": [600, 600], "configs": [40, 40], "configurable_fraction": [0.1, 0.1]}])";
  const std::string data = (root / "data").string(), run = (root / "run").string();
  std::string output;
  ASSERT_EQ(run_graphcost("synth --out " + data + " --plan " + plan + " --seed 4 --threads 1",
                          &output),
            0)
      << output;
  ASSERT_EQ(run_graphcost("train --data " + data + " --collection layout:xla:random "
                          "--valid-split '' --threads 1 --iterations 2 --out " + run,
                          &output),
            0)
      << output;
  std::string scores[2];
  for (int threads : {1, 2}) {
    const std::string out = (root / ("scores_" + std::to_string(threads))).string();
    ASSERT_EQ(run_graphcost("predict --model " + run + " --data " + data +
                                " --collection layout:xla:random --split test --threads " +
                                std::to_string(threads) + " --out " + out + ".csv --scores " +
                                out + ".json",
                            &output),
              0)
        << output;
    scores[threads - 1] = graphcost::read_file(out + ".json");
  }
  EXPECT_EQ(scores[1], scores[0]);
  EXPECT_GT(scores[0].size(), 40u * 5);  // 40 scores written
}

}  // namespace
