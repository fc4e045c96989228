// Failed measurements and the default configuration through the commands that move records
// around: `pack` keeps them, `inspect` shows them, `tune --space PACK` replays a failure as a
// failure, and `split` writes them into both parts.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "io/tpugraphs_npz.h"
#include "run_graphcost.h"
#include "../io/temp_dir.h"

namespace graphcost::cli {
namespace {

using graphcost::testing::run_graphcost;
using graphcost::testing::Streams;

// Four configurations of one parameter, the second failed; space.json makes the fourth the
// default.
const char* kCache = R"({
  "device_name": "GPU", "kernel_name": "k", "problem_size": [64],
  "tune_params_keys": ["block"], "tune_params": {"block": [16, 32, 64, 128]}, "objective": "time",
  "cache": {
    "16": {"block": 16, "time": 5.0},
    "32": {"block": 32, "time": "CompilationFailedConfig"},
    "64": {"block": 64, "time": 3.0},
    "128": {"block": 128, "time": 2.0}
  }
})";
const char* kSpace = R"({"ConfigurationSpace": {"TuningParameters": [
  {"Name": "block", "Type": "int", "Values": "[16, 32, 64, 128]", "Default": 128}]}})";

class FailuresCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() + "/space.json") << kSpace;
    std::ofstream(cache()) << kCache;
  }
  std::string cache() const { return dir_.path() + "/gpu.json"; }
  std::string pack() {
    const std::string out = dir_.path() + "/k.gcpack";
    auto [status, output] =
        run_graphcost("pack " + cache() + " --collection tile:xla --out " + out).pair();
    EXPECT_EQ(status, 0) << output;
    return out;
  }
  TempDir dir_;
};

TEST_F(FailuresCli, InspectShowsAPacksFailuresAndDefault) {
  const std::string packed = pack();
  auto [status, output] = run_graphcost("inspect " + packed + " --json", Streams::Stdout).pair();
  ASSERT_EQ(status, 0) << output;
  const nlohmann::json graph = nlohmann::json::parse(output)[0]["graphs"][0];
  EXPECT_EQ(graph["configs"], 4);
  EXPECT_EQ(graph["failed_configs"], 1);
  EXPECT_EQ(graph["default_config"], 3);
}

TEST_F(FailuresCli, TuneReplaysAPackedFailureAsAFailure) {
  const std::string packed = pack();
  // The whole space in one seed: every configuration is measured once.
  auto [status, output] = run_graphcost("tune --space " + packed +
                                            " --strategy random --budget 4 --seeds 1 --json",
                                        Streams::Stdout)
                              .pair();
  ASSERT_EQ(status, 0) << output;
  const nlohmann::json report = nlohmann::json::parse(output);
  EXPECT_EQ(report["failed_configurations"], 1);
  EXPECT_EQ(report["optimum"], 2.0);
  ASSERT_EQ(report["seeds"].size(), 1u);
  EXPECT_EQ(report["seeds"][0]["measurements"], 4);
  EXPECT_EQ(report["seeds"][0]["failed"], 1);
  EXPECT_EQ(report["seeds"][0]["best_time"], 2.0);
}

TEST_F(FailuresCli, SplitWritesFailuresAndDefaultIntoItsParts) {
  const std::string out = dir_.path() + "/split";
  auto [status, output] =
      run_graphcost("split " + cache() + " --fraction 0.5 --seed 3 --out " + out).pair();
  ASSERT_EQ(status, 0) << output;
  int64_t configs = 0, failed = 0, defaults = 0;
  for (const char* part : {"train", "valid"}) {
    const data::GraphRecord r = io::read_tpugraphs_npz(out + "/" + part + "/k_GPU.npz");
    configs += r.configs.count;
    for (uint8_t f : r.configs.failed) failed += f;
    if (r.configs.default_config >= 0) {
      ++defaults;
      // The default (block 128, encoded log2 = 7) keeps its place in the part it landed in.
      EXPECT_EQ(r.configs.tile[r.configs.default_config * r.configs.width], 7.0f);
      EXPECT_DOUBLE_EQ(r.configs.runtimes[r.configs.default_config], 2.0);
    }
    // The failed configuration (block 32, log2 = 5) keeps its flag wherever it landed.
    for (int64_t j = 0; j < r.configs.count; ++j) {
      const bool is_failed = !r.configs.failed.empty() && r.configs.failed[j] == 1;
      EXPECT_EQ(is_failed, r.configs.tile[j * r.configs.width] == 5.0f) << part << " " << j;
    }
  }
  EXPECT_EQ(configs, 4);
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(defaults, 1);
}

TEST_F(FailuresCli, VerifyChecksEveryChecksumAndNamesTheCorruptGraph) {
  const std::string packed = pack();
  auto [status, output] = run_graphcost("inspect " + packed + " --verify").pair();
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, packed + ": 1 graphs, 4 configurations: checksums and records ok\n");
  // Flip the last byte of the file's only configuration block (a configuration value).
  std::string bytes;
  {
    std::ifstream in(packed, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  uint64_t directory = 0, configs_offset = 0, configs_bytes = 0;
  std::memcpy(&directory, bytes.data() + 96, 8);  // header.directory_offset
  std::memcpy(&configs_offset, bytes.data() + directory + 16, 8);
  std::memcpy(&configs_bytes, bytes.data() + directory + 24, 8);
  bytes[configs_offset + configs_bytes - 1] ^= 0x20;
  const std::string bad = dir_.path() + "/bad.gcpack";
  std::ofstream(bad, std::ios::binary) << bytes;
  graphcost::testing::expect_error_line(
      "inspect " + bad + " --verify",
      {bad + ": graph k_GPU: configuration block checksum mismatch"});
}

}  // namespace
}  // namespace graphcost::cli
