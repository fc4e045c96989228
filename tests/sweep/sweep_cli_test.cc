// graphcost sweep through the real binary on a small synthetic collection: tables, resume,
// a changed grid, a failing run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "../cli/run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

class SweepCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::path(::testing::TempDir()) / ("graphcost_sweep_cli_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::string output;
    ASSERT_EQ(run_graphcost("synth --scale small --seed 3 --out " + (root_ / "data").string(),
                            &output),
              0)
        << output;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static fs::path root_;
};
fs::path SweepCli::root_;

const char* kGrid = R"({
  "base": {"iterations": 3, "graphs_per_batch": 1, "slate_size": 4, "log_every": 1,
           "valid_configs_per_graph": 16, "checkpoint_every": 0, "model": {"hidden": [8, 8]}},
  "variants": [{"name": "listmle"}, {"name": "hinge", "set": {"loss": "hinge"}}]
})";

TEST_F(SweepCli, RunsEveryCombinationWritesTablesAndResumes) {
  write(root_ / "grid.json", kGrid);
  const std::string args = "sweep --data " + (root_ / "data").string() +
                           " --collection tile:xla --grid " + (root_ / "grid.json").string() +
                           " --seeds 2 --jobs 2 --threads 2 --out " + (root_ / "s1").string();
  std::string output;
  ASSERT_EQ(run_graphcost(args, &output), 0) << output;
  EXPECT_NE(output.find("4 runs to go (0 done)"), std::string::npos) << output;
  const std::string md = slurp(root_ / "s1" / "results.md");
  EXPECT_NE(md.find("| c000 | listmle | 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| c001 | hinge | 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("top1_error"), std::string::npos) << md;
  const std::string csv = slurp(root_ / "s1" / "results.csv");
  // Validation reports eval's tile metrics: kendall_tau first in the tables' fixed order.
  EXPECT_EQ(csv.rfind("id,combination,done,failed,pending,kendall_tau_mean,kendall_tau_std,top1_error_mean", 0), 0u) << csv;
  EXPECT_TRUE(fs::exists(root_ / "s1" / "results.html"));
  // The run really trained with the combination's options and its seed.
  const std::string config = slurp(root_ / "s1" / "runs" / "c001-s1" / "config.json");
  EXPECT_NE(config.find("\"loss\": \"hinge\""), std::string::npos) << config;
  EXPECT_NE(config.find("\"seed\": 1"), std::string::npos) << config;

  const auto stamp = fs::last_write_time(root_ / "s1" / "runs" / "c000-s0" / "model.pt");
  ASSERT_EQ(run_graphcost(args, &output), 0) << output;
  EXPECT_NE(output.find("0 runs to go (4 done)"), std::string::npos) << output;
  EXPECT_EQ(fs::last_write_time(root_ / "s1" / "runs" / "c000-s0" / "model.pt"), stamp);

  // Another grid in the same folder is refused.
  write(root_ / "grid2.json", R"({"base": {"iterations": 4}})");
  std::string other = args;
  other.replace(other.find("grid.json"), 9, "grid2.json");
  EXPECT_EQ(run_graphcost(other, &output), 1);
  EXPECT_NE(output.find("holds a different sweep"), std::string::npos) << output;
}

TEST_F(SweepCli, FailingRunsAreReportedAndTheSweepFails) {
  write(root_ / "bad.json", R"({"base": {"iterations": 2, "loss": "nonsense"}})");
  std::string output;
  EXPECT_EQ(run_graphcost("sweep --data " + (root_ / "data").string() +
                              " --collection tile:xla --grid " + (root_ / "bad.json").string() +
                              " --seeds 1 --out " + (root_ / "s2").string(),
                          &output),
            1);
  EXPECT_NE(output.find("c000-s0 failed"), std::string::npos) << output;
  EXPECT_NE(output.find("1 run(s) failed"), std::string::npos) << output;
  EXPECT_NE(slurp(root_ / "s2" / "results.md").find("0 (1 failed)"), std::string::npos);
}

TEST_F(SweepCli, BadSweepFileIsOneError) {
  write(root_ / "broken.json", "{\"grid\": {\"lr\": []}}");
  std::string output;
  EXPECT_EQ(run_graphcost("sweep --data x --collection tile:xla --grid " +
                              (root_ / "broken.json").string() + " --out " +
                              (root_ / "s3").string(),
                          &output),
            1);
  EXPECT_NE(output.find("broken.json: grid.lr"), std::string::npos) << output;
}

// Options are read and checked as train reads them before any run starts (--dry-run too).
TEST_F(SweepCli, BadTrainingOptionsAreOneErrorBeforeAnyRun) {
  const fs::path grid = root_ / "options.json";
  const auto error_for = [&](const std::string& text, const std::string& extra) {
    write(grid, text);
    std::string output;
    EXPECT_EQ(run_graphcost("sweep --data x --collection tile:xla --grid " + grid.string() +
                                " --out " + (root_ / "s4").string() + extra,
                            &output),
              1)
        << output;
    return output;
  };
  EXPECT_EQ(error_for(R"({"grid": {"bogus_key": [1, 2]}})", " --dry-run"),
            "graphcost: error: " + grid.string() +
                ": c000 (bogus_key=1): train options: bogus_key: unknown key\n");
  EXPECT_NE(error_for(R"({"base": {"iterations": "three"}})", "")
                .find(grid.string() + ": c000 (base): train options: iterations: wrong type"),
            std::string::npos);
  EXPECT_EQ(error_for(R"({"variants": [{"name": "a"}, {"name": "b", "set": {"lr": -1}}]})", ""),
            "graphcost: error: " + grid.string() +
                ": c001 (b): train options: lr: must be a positive number\n");
  EXPECT_FALSE(fs::exists(root_ / "s4"));
}

}  // namespace
