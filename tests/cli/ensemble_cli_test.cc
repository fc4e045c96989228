// eval and predict with several runs (ensembles), MC dropout and XGBoost runs, through the real
// binary on the Kernel Tuner convolution records.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;

namespace fs = std::filesystem;

class EnsembleCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_ = std::string(GRAPHCOST_SHARED_DATA) + "/kernel_tuner/convolution";
    if (!fs::exists(data_)) return;
    dir_ = (fs::temp_directory_path() / ("graphcost_ensemble_cli_" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string common = " --data " + data_ + " --collection tile:xla --threads 1";
    auto [xgb_status, xgb_output] = run_graphcost("xgb train" + common + " --rounds 10 --max-configs 400 --out " +
                                                  dir_ + "/xgb");
    ASSERT_EQ(xgb_status, 0) << xgb_output;
    auto [nn_status, nn_output] = run_graphcost(
        "train --model gnn" + common + " --valid-split '' --iterations 3 --graphs-per-batch 2 --slate-size 8 " +
        "--hidden 8 --dropout 0.3 --out " + dir_ + "/nn");
    ASSERT_EQ(nn_status, 0) << nn_output;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (!fs::exists(data_)) GTEST_SKIP() << data_ << " not present";
  }
  static nlohmann::json eval_json(const std::string& args) {
    auto [status, output] =
        run_graphcost("eval --data " + data_ + " --max-configs 300 --threads 1 --json " + args, graphcost::testing::Streams::Stdout);
    EXPECT_EQ(status, 0) << output;
    return nlohmann::json::parse(output, nullptr, false);
  }
  static std::string data_, dir_;
};

std::string EnsembleCli::data_, EnsembleCli::dir_;

TEST_F(EnsembleCli, EnsembleOfOneRunIsTheRun) {
  const nlohmann::json one = eval_json("--model " + dir_ + "/xgb");
  ASSERT_TRUE(one.contains("top1_error")) << one;
  EXPECT_EQ(eval_json("--model " + dir_ + "/xgb --ensemble rank"), one);
  // The same run twice: the standardised mean keeps its order, so every metric is the same.
  const nlohmann::json twice = eval_json("--model " + dir_ + "/xgb --model " + dir_ + "/xgb");
  EXPECT_EQ(twice["kendall_tau"], one["kendall_tau"]);
  EXPECT_EQ(twice["top5_error"], one["top5_error"]);
}

TEST_F(EnsembleCli, MixedEnsembleAndMcDropout) {
  const nlohmann::json mixed =
      eval_json("--model " + dir_ + "/xgb --model " + dir_ + "/nn --mc-samples 3");
  ASSERT_TRUE(mixed.contains("mc_mean_std")) << mixed;
  EXPECT_GT(mixed["mc_mean_std"].get<double>(), 0.0);
  EXPECT_EQ(mixed["graph_count"], 4);
  const std::string out = dir_ + "/submission.csv";
  auto [status, output] = run_graphcost("predict --data " + data_ + " --split train --threads 1 --model " +
                                        dir_ + "/xgb --model " + dir_ + "/nn --ensemble rank --out " + out);
  EXPECT_EQ(status, 0) << output;
  EXPECT_TRUE(fs::exists(out));
}

TEST_F(EnsembleCli, BadInputsAreOneClearError) {
  auto [status, output] = run_graphcost("eval --data " + data_ + " --model " + dir_ + "/xgb --ensemble median");
  EXPECT_NE(status, 0);
  EXPECT_NE(output.find("--ensemble"), std::string::npos) << output;
  const std::string bad = dir_ + "/bad";
  fs::create_directories(bad);
  std::ofstream(bad + "/config.json") << R"({"model_type": "xgboost", "collection": "tile:xla", "xgboost": {}})";
  std::ofstream(bad + "/model.xgb") << "not a model";
  std::tie(status, output) = run_graphcost("eval --data " + data_ + " --model " + bad).pair();
  EXPECT_EQ(status, 1);
  EXPECT_EQ(output.rfind("graphcost: error: " + bad + "/model.xgb", 0), 0u) << output;
  // config.json keys the scorer reads are checked, not silently ignored.
  for (const char* entry : {R"("slate_size": "8")", R"("slate_size": 0)", R"("collection": 3)"}) {
    std::ofstream(bad + "/config.json") << "{\"model_type\": \"xgboost\", \"xgboost\": {}, " << entry << "}";
    const std::string key = std::string(entry).substr(1, std::string(entry).find('"', 1) - 1);
    graphcost::testing::expect_error_line("eval --data " + data_ + " --model " + bad,
                                          {bad + "/config.json: " + key + ": ", "expected a"});
  }
  std::tie(status, output) = run_graphcost("eval --data " + data_ + " --model " + dir_ + "/none").pair();
  EXPECT_EQ(status, 1);
  EXPECT_EQ(output.rfind("graphcost: error: " + dir_ + "/none/model.pt: no trained model", 0), 0u)
      << output;
}

}  // namespace
