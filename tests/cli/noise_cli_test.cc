// graphcost noise through the real binary: a hand-built file measuring configurations more than
// once, a split of it and a submission ranking that split, every figure worked out by hand, and
// bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../data/test_records.h"
#include "core/atomic_file.h"
#include "io/tpugraphs_npz.h"
#include "run_graphcost.h"

namespace graphcost::cli {
namespace {

namespace fs = std::filesystem;
using graphcost::testing::run_graphcost;
using graphcost::testing::Streams;

// Five distinct configurations of the small record's two configurable nodes (width 2).
const std::vector<std::vector<int8_t>> kConfigs = {
    {0, 1, 1, 0}, {1, 0, 0, 1}, {0, 0, 1, 1}, {1, 1, 0, 0}, {0, 1, 0, 1}};

class NoiseCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("graphcost_noise_cli_" + std::to_string(::getpid())))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/measured");
    fs::create_directories(dir_ + "/split/valid");
    //   record   0  1  2  3  4  5  6  7  8
    //   config   0  1  0  2  1  3  2  4  4
    //   runtime 10 20 12 30 18 40 15 25 11
    write(dir_ + "/measured/g.npz", {0, 1, 0, 2, 1, 3, 2, 4, 4},
          {10, 20, 12, 30, 18, 40, 15, 25, 11});
    // A split holding configurations 2, 3, 0 and 4 (their minimum runtimes), not 1.
    write(dir_ + "/split/valid/g.npz", {2, 3, 0, 4}, {15, 40, 10, 11});
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void write(const std::string& path, const std::vector<int>& configs,
                    const std::vector<int64_t>& runtime_ns) {
    data::GraphRecord r = data::testing::small_layout_record();
    r.graph.name = "g";
    r.configs.count = static_cast<int64_t>(configs.size());
    r.configs.layout.clear();
    for (int c : configs) {
      r.configs.layout.insert(r.configs.layout.end(), kConfigs[c].begin(), kConfigs[c].end());
    }
    r.configs.runtimes.clear();
    io::RuntimeColumns runtimes;
    runtimes.runtime_ns = runtime_ns;
    io::write_tpugraphs_npz(path, r, runtimes, true);
  }
  std::string submission(const std::string& text) {
    const std::string path = dir_ + "/submission.csv";
    write_file_atomically(path, "ID,TopConfigs\n" + text + "\n");
    return path;
  }
  nlohmann::json run_json(const std::string& args) {
    auto [status, output] =
        run_graphcost("noise --json " + dir_ + "/measured/g.npz " + args, Streams::Stdout).pair();
    EXPECT_EQ(status, 0) << output;
    return nlohmann::json::parse(output);
  }
  void expect_error(const std::string& args, const std::vector<std::string>& parts) {
    graphcost::testing::expect_error_line("noise " + args, parts);
  }

  std::string dir_;
};

TEST_F(NoiseCli, RepeatAgreementByHand) {
  const nlohmann::json j = run_json("--fast 2.5");
  ASSERT_EQ(j["graphs"].size(), 1u);
  const auto& g = j["graphs"][0];
  EXPECT_EQ(g["graph"], "g");
  EXPECT_EQ(g["records"], 9);
  EXPECT_EQ(g["distinct"], 5);
  EXPECT_DOUBLE_EQ(g["fastest"].get<double>(), 10);
  // Configurations 0, 1, 2, 4 measured twice: first (10, 20, 30, 25), second (12, 18, 15, 11).
  // Pairs (0,1) (0,2) (2,4) concordant, (0,4) (1,2) (1,4) discordant: tau 0, so no bound.
  // Relative differences 0.2, 2/18, 1, 14/11: median (0.2 + 1) / 2.
  EXPECT_EQ(g["all"]["count"], 4);
  EXPECT_NEAR(g["all"]["repeat_tau"].get<double>(), 0.0, 1e-12);
  EXPECT_TRUE(g["all"]["bound"].is_null());
  EXPECT_NEAR(g["all"]["median_relative_difference"].get<double>(), 0.6, 1e-12);
  // Fast group, both below 25: configurations 0 and 1, which agree (tau 1, bound 1).
  EXPECT_EQ(g["fast"]["count"], 2);
  EXPECT_NEAR(g["fast"]["repeat_tau"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(g["fast"]["bound"].get<double>(), 1.0, 1e-12);
  EXPECT_FALSE(g.contains("model"));

  // At least 3 records apart: configuration 1 (20, 18) and 2 (30, 15) only: tau -1.
  const nlohmann::json far = run_json("--min-gap 3");
  EXPECT_EQ(far["graphs"][0]["all"]["count"], 2);
  EXPECT_NEAR(far["graphs"][0]["all"]["repeat_tau"].get<double>(), -1.0, 1e-12);
  // At most 2 records apart: configurations 0 (10, 12) and 4 (25, 11): tau -1.
  const nlohmann::json close = run_json("--max-gap 2");
  EXPECT_EQ(close["graphs"][0]["all"]["count"], 2);
  EXPECT_EQ(close["max_gap"], 2);
  EXPECT_NEAR(close["graphs"][0]["all"]["repeat_tau"].get<double>(), -1.0, 1e-12);
}

TEST_F(NoiseCli, MeansOverTheGraphsOfAFolder) {
  // A second graph h: configurations 0 (10, 11) and 1 (20, 22) agree, tau 1 and bound 1, in the
  // fast group too (both below 2.5 x 10).
  write(dir_ + "/measured/h.npz", {0, 1, 0, 1, 2}, {10, 20, 11, 22, 30});
  auto [status, output] =
      run_graphcost("noise --json --fast 2.5 " + dir_ + "/measured", Streams::Stdout).pair();
  ASSERT_EQ(status, 0) << output;
  const nlohmann::json j = nlohmann::json::parse(output);
  ASSERT_EQ(j["graphs"].size(), 2u);
  const auto& mean = j["mean"];
  // g's repeat tau is 0 and its bound undefined: the tau mean is over both graphs, the bound's
  // over h alone.
  EXPECT_NEAR(mean["all"]["repeat_tau"]["mean"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(mean["all"]["repeat_tau"]["graphs"], 2);
  EXPECT_NEAR(mean["all"]["bound"]["mean"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(mean["all"]["bound"]["graphs"], 1);
  EXPECT_NEAR(mean["fast"]["repeat_tau"]["mean"].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(mean["fast"]["bound"]["graphs"], 2);
  EXPECT_FALSE(mean.contains("model"));
  // With a submission that ranks g only, the model's means are over g.
  const std::string csv = submission("layout:xla:default:g,2;3;0;1");
  const nlohmann::json m = nlohmann::json::parse(run_graphcost("noise --json --fast 2.5 " + dir_ +
                                                                   "/measured --submission " + csv +
                                                                   " --data " + dir_ + "/split",
                                                               Streams::Stdout)
                                                     .output);
  EXPECT_NEAR(m["mean"]["model"]["all"]["model_tau_second"]["mean"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_EQ(m["mean"]["model"]["all"]["model_tau_second"]["graphs"], 1);
  // The table ends with the means.
  const std::string table =
      run_graphcost("noise --fast 2.5 " + dir_ + "/measured", Streams::Stdout).output;
  EXPECT_NE(table.find("mean over graphs (graphs where defined): all repeat_tau 0.5000 (2) all "
                       "bound 1.0000 (1)"),
            std::string::npos)
      << table;
}

TEST_F(NoiseCli, SubmissionTauOnTheRepeatsTheSplitHolds) {
  // The split's configurations 2, 3, 0, 4 ranked fastest first as indices 2;3;0;1: costs
  // configuration 0 -> 0, 4 -> 1, 2 -> 2, 3 -> 3.
  const std::string csv = submission("layout:xla:default:g,2;3;0;1");
  const nlohmann::json j =
      run_json("--fast 2.5 --submission " + csv + " --data " + dir_ + "/split");
  const auto& m = j["graphs"][0]["model"];
  // The split holds repeated configurations 0, 2, 4: first (10, 30, 25), second (12, 15, 11),
  // costs (0, 2, 1). Against the first measurement every pair agrees: tau 1. Against the second,
  // (0, 4) disagrees: tau 1/3. The two measurements themselves: (0, 4) disagrees, tau 1/3.
  EXPECT_EQ(m["all"]["count"], 3);
  EXPECT_NEAR(m["all"]["model_tau_first"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(m["all"]["model_tau_second"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_NEAR(m["all"]["repeat_tau"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_NEAR(m["all"]["bound"].get<double>(), std::sqrt(1.0 / 3), 1e-12);
  // Of the fast group only configuration 0 is in the split: no pairs, no tau.
  EXPECT_EQ(m["fast"]["count"], 1);
  EXPECT_TRUE(m["fast"]["model_tau_first"].is_null());

  // The table shows the same figures.
  auto [status, output] =
      run_graphcost("noise " + dir_ + "/measured/g.npz --fast 2.5 --submission " + csv +
                        " --data " + dir_ + "/split",
                    Streams::Stdout)
          .pair();
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("9 records, 5 distinct configurations, 4 measured twice"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("0.5774       1.0000       0.3333"), std::string::npos) << output;
}

TEST_F(NoiseCli, BadInput) {
  const std::string measured = dir_ + "/measured/g.npz";
  expect_error(measured + " --submission " + dir_ + "/none.csv", {"--data"});
  // Option ranges are CLI11's: its own message and status.
  auto [status, output] = run_graphcost("noise " + measured + " --min-gap 0").pair();
  EXPECT_NE(status, 0);
  EXPECT_NE(output.find("--min-gap: Value 0 not in range"), std::string::npos) << output;
  expect_error(measured + " --min-gap 3 --max-gap 2", {"--max-gap", "at least --min-gap"});
  const std::string split = " --data " + dir_ + "/split";
  expect_error(measured + " --submission " + submission("tile:xla:g,0;1") + split,
               {"submission.csv", "tile"});
  expect_error(measured + " --submission " + submission("layout:xla:default:other,0;1;2;3") + split,
               {"submission.csv", "none of the measured graphs"});
  expect_error(measured + " --submission " + submission("layout:xla:default:g,0;1;2") + split,
               {"submission.csv", "layout:xla:default:g"});
  expect_error(measured + " --submission " +
                   submission("layout:xla:default:g,0;1;2;3\nlayout:xla:random:g,0;1;2;3") + split,
               {"submission.csv", "--collection"});
  // A file without runtimes (a test split).
  write(dir_ + "/measured/g.npz", {0, 1, 0}, {});
  expect_error(measured, {"g.npz", "no measured runtimes"});
}

}  // namespace
}  // namespace graphcost::cli
