// Architecture options through the real binary: flags reach config.json, and the MLP trains on
// the Kernel Tuner caches of shared/data.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unistd.h>
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

class ModelOptionsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    data = std::string(GRAPHCOST_SHARED_DATA) + "/kernel_tuner/convolution";
    if (!std::filesystem::exists(data)) GTEST_SKIP() << "no Kernel Tuner data at " << data;
    out = ::testing::TempDir() + "graphcost_model_options_" + std::to_string(getpid());
  }
  void TearDown() override {
    if (!out.empty()) std::filesystem::remove_all(out);
  }
  std::string common() const {
    return "train --model gnn --data " + data + " --collection tile:xla --valid-split '' --iterations 3 " +
           "--graphs-per-batch 2 --slate-size 8 --threads 1 --log-every 1 --out " + out;
  }
  std::string data, out;
};

TEST_F(ModelOptionsCli, MlpTrainsOnKernelTunerCaches) {
  auto [status, output] = run_graphcost(common() + " --arch mlp --hidden 16 8 --dropout 0.1");
  ASSERT_EQ(status, 0) << output;
  const nlohmann::json config = read_json(out + "/config.json");
  EXPECT_EQ(config["model"]["architecture"], "mlp") << config.dump();
  EXPECT_EQ(config["model"]["hidden"], nlohmann::json({16, 8}));
  EXPECT_TRUE(std::filesystem::exists(out + "/model.pt"));
  auto [eval_status, eval_output] =
      run_graphcost("eval --model " + out + " --data " + data + " --split train --tta 2");
  EXPECT_EQ(eval_status, 0) << eval_output;
}

TEST_F(ModelOptionsCli, PairwiseHeadWithAttentionAndGraphNormTrain) {
  // GraphNorm is a SAGE layer's: the architecture is given over the tabular default (mlp).
  auto [status, output] = run_graphcost(common() +
                                        " --architecture sage --hidden 8 --head pairwise"
                                        " --attention --graph-norm --attention-temperature 0.25");
  ASSERT_EQ(status, 0) << output;
  const nlohmann::json model = read_json(out + "/config.json")["model"];
  EXPECT_EQ(model["head"], "pairwise");
  EXPECT_EQ(model["attention"], true);
  EXPECT_EQ(model["graph_norm"], true);
  EXPECT_EQ(model["attention_temperature"], 0.25);
  EXPECT_EQ(output.find("is ignored"), std::string::npos) << output;  // the default loss
  // Anchored scores need the score head; --anchors and --tta do not combine.
  auto [anchors_status, anchors_output] =
      run_graphcost("eval --model " + out + " --data " + data + " --split train --anchors 4");
  EXPECT_EQ(anchors_status, 1) << anchors_output;
  EXPECT_NE(anchors_output.find("--anchors: needs the score head"), std::string::npos)
      << anchors_output;
}

TEST_F(ModelOptionsCli, AttentionScoresWithAnchorsDeterministically) {
  auto [status, output] = run_graphcost(common() + " --hidden 8 --attention");
  ASSERT_EQ(status, 0) << output;
  const std::string eval = "eval --json --model " + out + " --data " + data +
                           " --split train --max-configs 50 --slate-size 16 --anchors 7";
  auto [first_status, first] = run_graphcost(eval, graphcost::testing::Streams::Stdout).pair();
  ASSERT_EQ(first_status, 0) << first;
  // By default an attention run scores against its training slate size - 1 = 7 anchors, and the
  // same anchors give the same scores whatever the slate size.
  const std::string plain = "eval --json --model " + out + " --data " + data +
                            " --split train --max-configs 50 --slate-size 5";
  auto [second_status, second] = run_graphcost(plain, graphcost::testing::Streams::Stdout).pair();
  ASSERT_EQ(second_status, 0) << second;
  const nlohmann::json a = nlohmann::json::parse(first), b = nlohmann::json::parse(second);
  for (const char* metric : {"kendall_tau", "top1_error", "top5_error"})
    EXPECT_NEAR(a[metric].get<double>(), b[metric].get<double>(), 1e-9) << metric << a << b;
  auto [both_status, both] = run_graphcost(eval + " --tta 2");
  EXPECT_EQ(both_status, 1) << both;
  EXPECT_NE(both.find("cannot be combined"), std::string::npos) << both;
  // --tta alone turns the default anchors off instead of clashing with them.
  auto [tta_status, tta] = run_graphcost(plain + " --tta 2");
  EXPECT_EQ(tta_status, 0) << tta;
}

TEST_F(ModelOptionsCli, PairwiseHeadWarnsThatAnExplicitLossIsIgnored) {
  auto [status, output] = run_graphcost(common() + " --hidden 8 --head pairwise --loss hinge");
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("train: warning: the pairwise head trains on its own loss over pairs; "
                        "--loss hinge is ignored"),
            std::string::npos)
      << output;
}

TEST_F(ModelOptionsCli, UnknownArchitectureIsOneClearError) {
  auto [status, output] = run_graphcost(common() + " --arch transformer");
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("graphcost: error: "), std::string::npos) << output;
  EXPECT_NE(output.find("architecture"), std::string::npos) << output;
}

}  // namespace

namespace {

// --precision bf16 (model/kernels/precision.h) trains, is recorded in config.json and scores; a
// precision outside fp32/bf16 is CLI11's validation error, for train as for eval.
TEST_F(ModelOptionsCli, Bf16PrecisionTrainsAndScores) {
  auto [status, output] = run_graphcost(common() + " --precision bf16");
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream text;
  text << cpuinfo.rdbuf();
  const bool has_bf16 = text.str().find(" avx512_bf16") != std::string::npos ||
                        text.str().find(" amx_bf16") != std::string::npos;
  if (!has_bf16) {  // the one error line that says so
    EXPECT_EQ(status, 1) << output;
    EXPECT_NE(output.find("--precision bf16: this CPU has neither AVX512-BF16 nor AMX-BF16"),
              std::string::npos)
        << output;
    return;
  }
  ASSERT_EQ(status, 0) << output;
  EXPECT_EQ(read_json(out + "/config.json")["precision"], "bf16");
  for (const char* precision : {"fp32", "bf16"}) {
    auto [eval_status, eval_output] = run_graphcost("eval --model " + out + " --data " + data +
                                                    " --split train --precision " + precision);
    EXPECT_EQ(eval_status, 0) << eval_output;
  }
  EXPECT_EQ(run_graphcost(common() + "_fp16 --precision fp16").status, 105);
  EXPECT_EQ(run_graphcost("eval --model " + out + " --data " + data + " --precision fp16").status,
            105);
}

}  // namespace
