// Training fails cleanly and one run owns its folder (#40): a write past the file-size limit is
// one error line with exit status 1 that leaves the last checkpoint as it was and no temporary
// file; a second writer of a run folder is refused naming the first; a run killed before its
// first checkpoint by iterations resumes from one written by time, and the temporary files a
// killed run left are removed at the next start.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/atomic_file.h"
#include "run/folder_lock.h"
#include "run_graphcost.h"
#include "graphcost_binary.h"

namespace {

using graphcost::testing::run_graphcost;
namespace fs = std::filesystem;

class TrainHardeningCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_hardening_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const std::string plan = (root_ / "plan.json").string();
    std::ofstream(plan) << R"([{"collection": "tile:xla", "files": [3, 0, 0], "nodes": [30, 40],
                                "configs": [12, 12], "configurable_fraction": [0.1, 0.1]}])";
    std::string output;
    ASSERT_EQ(run_graphcost("synth --out " + data() + " --plan " + plan + " --seed 3 --threads 1",
                            &output),
              0)
        << output;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static std::string data() { return (root_ / "data").string(); }
  static std::string run_dir(const std::string& name) { return (root_ / name).string(); }
  static std::string train(const std::string& out, const std::string& extra) {
    return "train --data " + data() + " --collection tile:xla --valid-split '' --graphs-per-batch 2 " +
           "--slate-size 4 --threads 1 --out " + out + " " + extra;
  }
  // Starts `graphcost args` in the background, its output to `log`; returns its pid.
  static pid_t start(const std::string& args, const std::string& log) {
    const std::string command = graphcost::testing::graphcost_command(args) + " > " + log +
                                " 2>&1 & echo $!";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return -1;
    char buffer[64] = {0};
    const bool read = std::fgets(buffer, sizeof buffer, pipe) != nullptr;
    ::pclose(pipe);
    return read ? static_cast<pid_t>(std::stol(buffer)) : -1;
  }
  // Waits up to 120 s for condition; false when it never held.
  template <typename Condition>
  static bool wait_for(const Condition& condition) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < end) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  static void kill_and_wait(pid_t pid) {
    ::kill(pid, SIGKILL);
    wait_for([pid] { return ::kill(pid, 0) != 0; });  // not our child: poll until it is gone
  }
  static int temporaries(const std::string& dir) {
    int count = 0;
    for (const auto& entry : fs::directory_iterator(dir))
      count += graphcost::run::is_temporary_file_name(entry.path().filename().string());
    return count;
  }

  static fs::path root_;
};

fs::path TrainHardeningCli::root_;

TEST_F(TrainHardeningCli, AFileSizeLimitIsOneErrorLineAndKeepsTheLastCheckpoint) {
  const std::string run = run_dir("limited");
  std::string output;
  ASSERT_EQ(run_graphcost(train(run, "--hidden 64 64 --iterations 2"), &output), 0) << output;
  const std::string checkpoint = graphcost::read_file(run + "/checkpoint.pt");
  ASSERT_GT(checkpoint.size(), 64u << 10);
  // 32 KiB: config.json and metrics.jsonl fit, the checkpoint does not. Before, the process was
  // killed by SIGXFSZ (exit 153) or aborted in LibTorch's zip writer (exit 134).
  const std::string command = std::string("bash -c \"ulimit -f 32; exec ") + GRAPHCOST_BINARY +
                              " " + train(run, "--resume --iterations 4") + "\" 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[4096];
  output.clear();
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 1) << output;
  const size_t at = output.find("graphcost: error: ");
  ASSERT_NE(at, std::string::npos) << output;
  EXPECT_EQ(output.substr(at), "graphcost: error: " + run +
                                   "/checkpoint.pt: write failed: File too large\n");
  EXPECT_EQ(graphcost::read_file(run + "/checkpoint.pt"), checkpoint);
  EXPECT_EQ(temporaries(run), 0);
}

TEST_F(TrainHardeningCli, ASecondWriterIsRefusedNamingTheFirst) {
  const std::string run = run_dir("contended");
  const std::string log = run_dir("contended.log");
  const pid_t first = start(train(run, "--iterations 100000000 --checkpoint-every 0"), log);
  ASSERT_GT(first, 0);
  // The lock file names its holder once the first run holds the folder.
  const std::string lock = run + "/" + graphcost::run::kFolderLockFile;
  ASSERT_TRUE(wait_for([&] {
    std::error_code error;
    return fs::file_size(lock, error) > 0 && !error;
  })) << graphcost::read_file(log);
  const std::string config_before =
      fs::exists(run + "/config.json") ? graphcost::read_file(run + "/config.json") : "";
  auto [status, output] = run_graphcost(train(run, "--iterations 3 --seed 9 --overwrite")).pair();
  kill_and_wait(first);
  EXPECT_EQ(status, 1) << output;
  EXPECT_EQ(output.rfind("graphcost: error: " + run + ": in use by another writer (pid " +
                             std::to_string(first) + " on ",
                         0),
            0u)
      << output;
  EXPECT_NE(output.find(": graphcost train, since "), std::string::npos) << output;
  // The refused writer removed nothing (--overwrite) and wrote nothing.
  if (!config_before.empty()) {
    EXPECT_EQ(graphcost::read_file(run + "/config.json"), config_before);
  }
}

TEST_F(TrainHardeningCli, AKilledRunResumesFromACheckpointByTimeAndItsTemporariesGo) {
  const std::string run = run_dir("killed");
  const std::string log = run_dir("killed.log");
  // No checkpoint by iterations before the kill: only the one by time can be resumed from.
  const pid_t pid = start(
      train(run, "--iterations 100000000 --checkpoint-every 0 --checkpoint-seconds 1"), log);
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(wait_for([&] { return fs::exists(run + "/checkpoint.pt"); }))
      << graphcost::read_file(log);
  kill_and_wait(pid);
  // What a kill -9 during a write leaves.
  std::ofstream(run + "/checkpoint.pt.tmp.99999999") << "half a checkpoint";
  std::ofstream(run + "/metrics.jsonl.tmp.4") << "{";
  ASSERT_EQ(temporaries(run), 2);
  std::string output;
  ASSERT_EQ(run_graphcost(train(run, "--resume --iterations 1"), &output), 0) << output;
  EXPECT_TRUE(fs::exists(run + "/model.pt")) << output;
  EXPECT_EQ(temporaries(run), 0);
}

// #40: a Kernel Tuner cache of another width than the run was trained on failed inside the ranker
// without the file's name. #37: the line says why a Kernel Tuner graph may not fit (runs trained
// on the one-hot device columns of old).
TEST_F(TrainHardeningCli, DataOfAnotherWidthThanTheRunIsRefusedNamingTheFile) {
  const std::string run = run_dir("width");
  std::string output;
  ASSERT_EQ(run_graphcost(train(run, "--hidden 8 --iterations 2"), &output), 0) << output;
  const std::string cache = run_dir("gpu.json");
  std::ofstream(cache) << R"({"device_name": "NVIDIA RTX A4000", "kernel_name": "k", "problem_size": [1024, 1],
      "tune_params_keys": ["block"], "cache": {"32": {"block": 32, "time": 2.0},
      "64": {"block": 64, "time": 1.0}}})";
  auto [status, text] = run_graphcost("eval --model " + run + " --data " + cache + " --threads 1").pair();
  EXPECT_EQ(status, 1) << text;
  EXPECT_EQ(text, "graphcost: error: " + cache + ": node_feat: 9 columns (" + run +
                      " was trained on 140); a Kernel Tuner graph has 7 device columns (its "
                      "device's properties) and one per problem_size value; a run trained before "
                      "graphcost described devices by their properties (one column per device of "
                      "its folder) cannot score it: retrain it with graphcost train on the same "
                      "caches\n");
}

}  // namespace
