// synth --plan, then train with every optional node input on, then eval the run: the run's
// options must rebuild the same inputs at evaluation.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "core/atomic_file.h"
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;

namespace fs = std::filesystem;

TEST(FeatureOptionsCli, SynthPlanTrainWithEveryInputAndEvaluate) {
  const fs::path root =
      fs::temp_directory_path() / ("graphcost_feature_cli_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string plan = (root / "plan.json").string();
  std::ofstream(plan) << R"([{"collection": "layout:xla:random", "files": [2, 1, 0],
      "nodes": [150, 150], "configs": [20, 20], "configurable_fraction": [0.1, 0.1]}])";
  const std::string data = (root / "data").string(), run = (root / "run").string();
  std::string output;
  ASSERT_EQ(
      run_graphcost("synth --out " + data + " --plan " + plan + " --seed 3 --threads 1", &output),
      0)
      << output;
  // Only the planned collection and splits are written.
  EXPECT_TRUE(fs::exists(data + "/npz/layout/xla/random/valid"));
  EXPECT_FALSE(fs::exists(data + "/npz/tile"));

  output.clear();
  ASSERT_EQ(run_graphcost("train --data " + data + " --collection layout:xla:random --out " + run +
                              " --iterations 20 --graphs-per-batch 2 --slate-size 4 --hidden 16 16"
                              " --threads 1 --minus-one-padding --shape-mod128 --rw-steps 3"
                              " --virtual-node --layout-shapes on",
                          &output),
            0)
      << output;
  const auto config = nlohmann::json::parse(graphcost::read_file(run + "/config.json"));
  const auto& model = config.at("model");
  EXPECT_EQ(model.at("minus_one_padding"), true);
  EXPECT_EQ(model.at("shape_mod128"), true);
  EXPECT_EQ(model.at("random_walk_steps"), 3);
  EXPECT_EQ(model.at("virtual_node"), true);
  EXPECT_EQ(model.at("layout_shapes"), "on");

  output.clear();
  ASSERT_EQ(
      run_graphcost("eval --model " + run + " --data " + data + " --split valid --json", &output),
      0)
      << output;
  EXPECT_NE(output.find("kendall_tau"), std::string::npos) << output;

  // layout_shapes "auto" (the default) resolves to "on" on this layout data with the TpuGraphs
  // columns, and to "off" when Graph Segment Training cuts the graphs; the stored value is the
  // resolved one, and eval rebuilds the inputs it says.
  const std::string plain = (root / "plain").string(), gst = (root / "gst").string();
  for (const auto& [out, extra, expected] :
       {std::tuple<std::string, std::string, std::string>{plain, "", "on"},
        {gst, " --gst-segment-nodes 64", "off"}}) {
    output.clear();
    ASSERT_EQ(run_graphcost("train --data " + data + " --collection layout:xla:random --out " +
                                out + " --iterations 4 --graphs-per-batch 2 --slate-size 4" +
                                " --hidden 8 --threads 1" + extra,
                            &output),
              0)
        << output;
    const auto stored = nlohmann::json::parse(graphcost::read_file(out + "/config.json"));
    EXPECT_EQ(stored.at("model").at("layout_shapes"), expected) << extra;
    output.clear();
    EXPECT_EQ(
        run_graphcost("eval --model " + out + " --data " + data + " --split valid --json", &output),
        0)
        << output;
  }

  output.clear();
  EXPECT_NE(run_graphcost("train --data " + data + " --out " + run + " --rw-steps many", &output),
            0);
  // The error names the option by its JSON key (--rw-steps is an alias of it).
  EXPECT_NE(output.find("--random-walk-steps: expected an integer"), std::string::npos) << output;
  fs::remove_all(root);
}

}  // namespace
