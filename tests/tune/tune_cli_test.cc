// graphcost tune through the real binary, on a hand-made Kernel Tuner cache.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/atomic_file.h"

namespace graphcost::tune {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  std::string out;
  std::string err;
  int status = -1;
};

std::string slurp(const std::string& path) {
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
  }
  return text;
}

class TuneCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("graphcost_tune_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // x in {1, 2, 4, 8}, y in {0, 1, 2}: time 10 + |log2 x - 2| + y; (1, 2) and (8, 2) failed.
    nlohmann::json cache = nlohmann::json::object();
    const int xs[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; ++i) {
      for (int y = 0; y < 3; ++y) {
        nlohmann::json entry = {{"x", xs[i]}, {"y", y}};
        if (y == 2 && (i == 0 || i == 3)) {
          entry["time"] = "RuntimeFailedConfig";
        } else {
          entry["time"] = 10.0 + std::abs(i - 2) + y;
        }
        cache[std::to_string(xs[i]) + "," + std::to_string(y)] = entry;
      }
    }
    nlohmann::json doc = {{"kernel_name", "toy"},
                          {"device_name", "dev"},
                          {"tune_params_keys", {"x", "y"}},
                          {"cache", cache}};
    cache_ = (dir_ / "toy.json").string();
    write_file_atomically(cache_, doc.dump());
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome run(const std::string& arguments) {
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    const std::string command =
        std::string(GRAPHCOST_BINARY) + " tune " + arguments + " >" + out + " 2>" + err;
    Outcome o;
    o.status = std::system(command.c_str());
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
  }

  void expect_one_line_error(const std::string& arguments, const std::string& words) {
    const Outcome o = run(arguments);
    ASSERT_TRUE(WIFEXITED(o.status)) << arguments;
    EXPECT_EQ(WEXITSTATUS(o.status), 1) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.err.rfind("graphcost: error: ", 0), 0u) << o.err;
    EXPECT_NE(o.err.find(words), std::string::npos) << o.err;
  }

  fs::path dir_;
  std::string cache_;
};

TEST_F(TuneCli, JsonReportOnRecordedTimes) {
  const Outcome o = run("--space " + cache_ + " --strategy random --budget 12 --seeds 3 --json --out " +
                        (dir_ / "run").string());
  ASSERT_EQ(WEXITSTATUS(o.status), 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_DOUBLE_EQ(j["optimum"].get<double>(), 10.0);
  EXPECT_EQ(j["reach_1pct_seeds"].get<int>(), 3);  // the whole space: every seed finds it
  EXPECT_LE(j["reach_1pct"].get<double>(), 12.0);
  EXPECT_LE(j["reach_10pct"].get<double>(), j["reach_1pct"].get<double>());
  ASSERT_EQ(j["curve"].size(), 12u);
  EXPECT_DOUBLE_EQ(j["curve"][11].get<double>(), 10.0);
  for (const auto& seed : j["seeds"]) EXPECT_EQ(seed["failed"].get<int>(), 2);
  EXPECT_EQ(j["seeds"][0]["best_assignment"].get<std::string>(), "x=4 y=0");
  EXPECT_TRUE(fs::exists(dir_ / "run" / "tune.json"));
  EXPECT_EQ(slurp((dir_ / "run" / "curve.svg").string()).rfind("<svg", 0), 0u);
}

TEST_F(TuneCli, MeasuresWithACommand) {
  // The "time" is the number x * 10 + y printed by the shell; x = 2 fails.
  const Outcome o = run("--space " + cache_ +
                        " --strategy genetic --population 3 --budget 12 --seeds 1 --json "
                        "--measure 'test {x} -ne 2 && echo took $(( {x} * 10 + {y} )) us'");
  ASSERT_EQ(WEXITSTATUS(o.status), 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_DOUBLE_EQ(j["optimum"].get<double>(), 10.0);  // x = 1, y = 0
  EXPECT_EQ(j["optimum_source"].get<std::string>(), "best measured");
  EXPECT_EQ(j["seeds"][0]["failed"].get<int>(), 3);
}

// A dataset root from synth holds synth_report.json: it is a TpuGraphs root, not a folder of
// Kernel Tuner caches, and tunes as its tile split folder does.
TEST_F(TuneCli, DatasetRootTunesAsItsSplitFolder) {
  const std::string plan = (dir_ / "plan.json").string(), root = (dir_ / "root").string();
  write_file_atomically(plan, R"([{"collection": "tile:xla", "files": [1, 0, 0], "nodes": [30, 30],
                                   "configs": [12, 12], "configurable_fraction": [0.1, 0.1]}])");
  const std::string synth = std::string(GRAPHCOST_BINARY) + " synth --out " + root + " --plan " +
                            plan + " --seed 3 --threads 1 >/dev/null 2>&1";
  ASSERT_EQ(std::system(synth.c_str()), 0);
  ASSERT_TRUE(fs::exists(dir_ / "root" / "synth_report.json"));
  const std::string options = " --strategy random --budget 12 --seeds 2 --json";
  const Outcome from_root = run("--space " + root + options);
  ASSERT_EQ(WEXITSTATUS(from_root.status), 0) << from_root.err;
  const Outcome from_split = run("--space " + root + "/npz/tile/xla/train" + options);
  ASSERT_EQ(WEXITSTATUS(from_split.status), 0) << from_split.err;
  const nlohmann::json a = nlohmann::json::parse(from_root.out);
  const nlohmann::json b = nlohmann::json::parse(from_split.out);
  EXPECT_EQ(a["optimum"], b["optimum"]);
  EXPECT_EQ(a["curve"], b["curve"]);
  EXPECT_EQ(a["seeds"], b["seeds"]);
}

TEST_F(TuneCli, BadOptionsGiveOneErrorLine) {
  expect_one_line_error("--space " + cache_ + " --strategy annealing", "random, genetic, model");
  expect_one_line_error("--space " + cache_ + " --budget 0", "--budget");
  expect_one_line_error("--space " + cache_ + " --measure 'run {z}'", "{z}");
  expect_one_line_error("--space " + (dir_ / "missing.json").string(), "missing.json");
  expect_one_line_error("--space " + cache_ + " --device A100", "no graph matches");
  expect_one_line_error("--space " + cache_ + " --strategy model --dropout 0", "--dropout");
  expect_one_line_error("--space " + cache_ + " --strategy model --pretrained " +
                            (dir_ / "nope").string(),
                        "nope");
}

}  // namespace
}  // namespace graphcost::tune
