// graphcost stack end to end on a tiny synthetic tile collection: members trained on the training
// split, the stack fitted on the validation split and scored by eval and predict like any run;
// a member that trained on the fitted graphs is refused; bad input is one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "kernel_tuner_caches.h"
#include "run_graphcost.h"

namespace {

using graphcost::testing::expect_error_line;
using graphcost::testing::run_graphcost;
namespace fs = std::filesystem;
using nlohmann::json;

class StackCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_stack_cli_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const std::string plan = path("plan.json");
    std::ofstream(plan) << R"([{"collection": "tile:xla", "files": [4, 4, 2], "nodes": [20, 30],
                                "configs": [16, 24], "configurable_fraction": [0.1, 0.1]}])";
    std::string output;
    ASSERT_EQ(run_graphcost("synth --out " + data() + " --plan " + plan + " --seed 6 --threads 1",
                            &output),
              0)
        << output;
    const std::string common = " --data " + data() + " --collection tile:xla --threads 1";
    ASSERT_EQ(run_graphcost("xgb train" + common + " --rounds 10 --out " + path("xgb"), &output), 0)
        << output;
    ASSERT_EQ(run_graphcost("train" + common + " --valid-split '' --iterations 6 " +
                                "--graphs-per-batch 2 --slate-size 4 --hidden 8 --out " + path("nn"),
                            &output),
              0)
        << output;
    // A member trained on the validation split: stacking on it must be refused.
    ASSERT_EQ(run_graphcost("xgb train" + common + " --split valid --rounds 3 --out " +
                                path("xgb_valid"),
                            &output),
              0)
        << output;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static std::string path(const std::string& name) { return (root_ / name).string(); }
  static std::string data() { return path("data"); }
  static std::string stack(const std::string& members, const std::string& out,
                           const std::string& extra = "") {
    return "stack --data " + data() + " --threads 1 --folds 2 " + members + " --out " + out + " " +
           extra;
  }
  static json eval_json(const std::string& run, const std::string& split) {
    auto [status, output] = run_graphcost("eval --data " + data() + " --split " + split +
                                              " --threads 1 --json --model " + run,
                                          graphcost::testing::Streams::Stdout)
                                .pair();
    EXPECT_EQ(status, 0) << output;
    return json::parse(output, nullptr, false);
  }
  static json config(const std::string& run) {
    return json::parse(graphcost::read_file(run + "/config.json"));
  }
  static fs::path root_;
};

fs::path StackCli::root_;

TEST_F(StackCli, StackOfTwoMembersIsARunForEvalAndPredict) {
  const std::string out = path("stack2");
  std::string output;
  ASSERT_EQ(run_graphcost(stack("--member " + path("xgb") + " --member " + path("nn"), out), &output), 0)
      << output;
  const json c = config(out);
  EXPECT_EQ(c["model_type"], "stack");
  EXPECT_EQ(c["split"], "valid");
  EXPECT_EQ(c["collection"], "tile:xla");
  EXPECT_EQ(c["stack"]["members"], json({path("xgb"), path("nn")}));  // outside: absolute
  EXPECT_EQ(c["stack"]["meta"], "ridge");
  EXPECT_EQ(c["stack"]["weights"].size(), 2u);
  EXPECT_EQ(c["stack"]["cross_fit"].size(), 5u);
  const json metrics = eval_json(out, "test");
  EXPECT_EQ(metrics["graph_count"], 2) << metrics;
  EXPECT_TRUE(metrics["kendall_tau"].is_number()) << metrics;
  const std::string submission = path("stack2.csv");
  ASSERT_EQ(run_graphcost("predict --data " + data() + " --split test --threads 1 --model " + out +
                              " --out " + submission,
                          &output),
            0)
      << output;
  EXPECT_TRUE(fs::exists(submission));
}

TEST_F(StackCli, OneMemberRidgeStackRanksAsItsMember) {
  // One column z(score) and a positive weight: the stack's order is the member's, so every
  // graph's tau is the member's own.
  const std::string out = path("stack1");
  std::string output;
  ASSERT_EQ(run_graphcost(stack("--member " + path("xgb"), out), &output), 0) << output;
  ASSERT_GT(config(out)["stack"]["weights"][0].get<double>(), 0.0);
  const json stacked = eval_json(out, "test"), member = eval_json(path("xgb"), "test");
  ASSERT_EQ(stacked["graphs"].size(), 2u) << stacked;
  for (size_t g = 0; g < 2; ++g)
    EXPECT_EQ(stacked["graphs"][g]["kendall_tau"], member["graphs"][g]["kendall_tau"]);
}

TEST_F(StackCli, XgboostMetaLearnerAndMembersInsideTheStack) {
  // A member copied into the stack's folder is stored relative to it, so the folder moves whole.
  const std::string out = path("stack_xgb");
  fs::create_directories(out + "/members");
  fs::copy(path("xgb"), out + "/members/xgb", fs::copy_options::recursive);
  std::string output;
  ASSERT_EQ(run_graphcost(stack("--member " + out + "/members/xgb --member " + path("nn"), out,
                                "--meta xgboost"),
                          &output),
            0)
      << output;
  EXPECT_TRUE(fs::exists(out + "/meta.xgb"));
  const json c = config(out);
  EXPECT_EQ(c["stack"]["members"][0], "members/xgb");
  EXPECT_EQ(c["stack"]["cross_fit"].size(), 3u);
  const json before = eval_json(out, "test");
  fs::rename(out, path("stack_moved"));
  EXPECT_EQ(eval_json(path("stack_moved"), "test"), before);
}

TEST_F(StackCli, AMemberTrainedOnTheFittedGraphsIsRefused) {
  // The stack is fitted on the validation split, which xgb_valid trained on.
  expect_error_line(stack("--member " + path("xgb") + " --member " + path("xgb_valid"), path("s_in")),
                    {path("xgb_valid") + ": trained on graph ", ", which the stack is fitted on"});
  // Fitting on the training split is refused for every member.
  expect_error_line(stack("--member " + path("xgb"), path("s_train"), "--split train"),
                    {path("xgb") + ": trained on graph "});
  EXPECT_FALSE(fs::exists(path("s_in") + "/config.json"));
}

// One program's configurations split (as the AlexNet protocol splits its file): members trained
// on one part, the stack fitted on the other. The graph is shared, the configurations are not, so
// the members are out of sample there; the one graph's configurations stand in for graphs in the
// folds; a member that saw the fitted configurations is refused; --refit-member writes a stack
// that scores with runs trained on the whole graph, with the weights fitted on the members'.
TEST_F(StackCli, OneGraphsConfigurationsSplitBetweenMembersAndStack) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(data() + "/npz/tile/xla/train"))
    files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  const std::string single = path("single");
  std::string output;
  ASSERT_EQ(
      run_graphcost("split " + files[0] + " --fraction 0.5 --seed 0 --out " + single, &output), 0)
      << output;
  const std::string common = " --data " + single + " --collection tile:xla --threads 1";
  ASSERT_EQ(
      run_graphcost("xgb train" + common + " --rounds 10 --out " + path("single_xgb"), &output), 0)
      << output;
  ASSERT_EQ(
      run_graphcost("train" + common + " --valid-split '' --iterations 6 --graphs-per-batch 1 " +
                        "--slate-size 4 --hidden 8 --out " + path("single_nn"),
                    &output),
      0)
      << output;
  const std::string members = " --member " + path("single_xgb") + " --member " + path("single_nn");
  const std::string base =
      "stack --data " + single + " --collection tile:xla --threads 1 --folds 2";
  {
    auto [status, text] = run_graphcost(base + members + " --out " + path("single_stack")).pair();
    ASSERT_EQ(status, 0) << text;
    EXPECT_NE(text.find("stack: one graph: its configurations are dealt into 2 parts"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(path("single_xgb") + " trained on other configurations of 1 of the graphs"),
              std::string::npos)
        << text;
  }
  const json plain = config(path("single_stack"));
  EXPECT_EQ(plain["stack"]["cross_fit"].size(), 5u);
  EXPECT_FALSE(plain["stack"].contains("fitted_on_members"));
  // The fixture's members trained on the whole file: every fitted configuration is in-sample.
  expect_error_line(base + " --member " + path("xgb") + " --out " + path("single_bad"),
                    {path("xgb") + ": trained on graph ", ", which the stack is fitted on (",
                     "configurations there are among the member's training ones"});
  // Blending: the weights fitted on the split members' scores, the runs the whole-file ones.
  ASSERT_EQ(run_graphcost(base + members + " --refit-member " + path("xgb") + " --refit-member " +
                              path("nn") + " --out " + path("single_refit"),
                          &output),
            0)
      << output;
  const json refit = config(path("single_refit"));
  EXPECT_EQ(refit["stack"]["members"], json({path("xgb"), path("nn")}));
  EXPECT_EQ(refit["stack"]["fitted_on_members"], json({path("single_xgb"), path("single_nn")}));
  EXPECT_EQ(refit["stack"]["weights"], plain["stack"]["weights"]);
  const json metrics = eval_json(path("single_refit"), "valid");
  EXPECT_TRUE(metrics["kendall_tau"].is_number()) << metrics;
  // One refit run per member, of the member's kind.
  expect_error_line(
      base + members + " --refit-member " + path("xgb") + " --out " + path("single_bad"),
      {"--refit-member: give one per --member, in the same order (2 --member, 1 --refit-member)"});
  expect_error_line(
      base + members + " --refit-member " + path("nn") + " --refit-member " + path("xgb") +
          " --out " + path("single_bad"),
      {path("nn") + ": model_type: a run of kind neural, but the --member it stands for (" +
       path("single_xgb") + ") is of kind xgboost"});
  EXPECT_FALSE(fs::exists(path("single_bad") + "/config.json"));
}

// Kernel Tuner devices (issue #36's held-out-device protocol): the members trained on devices A
// and B, the stack fitted on C with the other devices' times (A's and B's) as one more member;
// blended with runs refitted on A, B and C, the written stack ranks a fourth device by all three
// devices' times, with the weights fitted on the A-and-B members'.
TEST_F(StackCli, OtherDevicesJoinTheRefitMembersReferences) {
  const std::string kt = path("kt");
  fs::create_directories(kt);
  const std::vector<std::string> devices = {"DevA", "DevB", "DevC", "DevD"};
  for (size_t d = 0; d < devices.size(); ++d)
    graphcost::testing::write_device_cache(kt + "/" + devices[d] + ".json", devices[d],
                                           1.0 + 0.5 * static_cast<double>(d),
                                           4.0 + 0.4 * static_cast<double>(d));
  auto graph = [](const std::string& device) { return "toy_" + device; };
  auto leave_out = [&](std::vector<std::string> names) {
    std::string flags;
    for (const std::string& name : names) flags += " --exclude " + graph(name);
    return flags;
  };
  const std::string common = " --data " + kt + " --collection tile:xla --threads 1 --rounds 5";
  std::string output;
  ASSERT_EQ(
      run_graphcost("xgb train" + common + leave_out({"DevC", "DevD"}) + " --out " + path("kt_ab"),
                    &output),
      0)
      << output;
  ASSERT_EQ(run_graphcost("xgb train" + common + leave_out({"DevD"}) + " --out " + path("kt_abc"),
                          &output),
            0)
      << output;
  const std::string base = "stack --data " + kt + " --collection tile:xla --threads 1 --folds 2" +
                           leave_out({"DevA", "DevB", "DevD"}) + " --member " + path("kt_ab") +
                           " --member-other-devices --out ";
  ASSERT_EQ(run_graphcost(base + path("kt_stack"), &output), 0) << output;
  ASSERT_EQ(run_graphcost(base + path("kt_refit") + " --refit-member " + path("kt_abc"), &output),
            0)
      << output;
  const json plain = config(path("kt_stack")), refit = config(path("kt_refit"));
  EXPECT_EQ(refit["stack"]["weights"], plain["stack"]["weights"]);
  EXPECT_EQ(refit["stack"]["members"], json({path("kt_abc")}));
  EXPECT_EQ(refit["stack"]["fitted_on_members"], json({path("kt_ab")}));
  auto references = [](const std::string& run) {
    return json::parse(graphcost::read_file(run + "/other_devices.json"))["references"];
  };
  EXPECT_EQ(references(path("kt_stack")), json({graph("DevA"), graph("DevB")}));
  EXPECT_EQ(references(path("kt_refit")), json({graph("DevA"), graph("DevB"), graph("DevC")}));
  // The refitted stack scores the held-out device like any run.
  auto [status, scored] = run_graphcost("eval --data " + kt +
                                            "/DevD.json --collection tile:xla "
                                            "--threads 1 --json --model " +
                                            path("kt_refit"),
                                        graphcost::testing::Streams::Stdout)
                              .pair();
  ASSERT_EQ(status, 0) << scored;
  EXPECT_TRUE(json::parse(scored)["kendall_tau"].is_number()) << scored;
}

TEST_F(StackCli, BadInputIsOneLine) {
  expect_error_line(stack("--member " + path("none"), path("s_bad")),
                    {path("none") + ": no such run folder (--member)"});
  expect_error_line(stack("--member " + path("xgb"), path("s_bad"), "--collection layout:xla:random"),
                    {path("xgb") + ": trained on tile:xla, but collection layout:xla:random"});
  {  // a flag's value outside its choices: CLI11's validation status (105), as for every flag
    auto [status, output] =
        run_graphcost(stack("--member " + path("xgb"), path("s_bad"), "--meta lasso")).pair();
    EXPECT_EQ(status, 105) << output;
    EXPECT_EQ(output, "graphcost: error: graphcost stack: --meta: lasso not in {ridge,xgboost} "
                      "(graphcost stack --help lists the options)\n");
  }
  // An empty split: no graphs to fit on.
  fs::create_directories(path("empty/tile/xla/valid"));
  expect_error_line("stack --data " + path("empty") + " --member " + path("xgb") + " --out " +
                        path("s_bad"),
                    {path("empty")});
  // A stack is not a member.
  std::string output;
  ASSERT_EQ(run_graphcost(stack("--member " + path("xgb"), path("s_one")), &output), 0) << output;
  expect_error_line(stack("--member " + path("s_one"), path("s_bad")),
                    {path("s_one") + ": model_type: a stacked run cannot be a member"});
  // A member moved away after stacking.
  fs::copy(path("xgb"), path("xgb_copy"), fs::copy_options::recursive);
  ASSERT_EQ(run_graphcost(stack("--member " + path("xgb_copy"), path("s_gone")), &output), 0) << output;
  fs::remove_all(path("xgb_copy"));
  expect_error_line("eval --data " + data() + " --model " + path("s_gone"),
                    {path("s_gone") + "/config.json: stack.members: member " + path("xgb_copy") +
                     " is not a run folder"});
}

}  // namespace
