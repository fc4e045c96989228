// graphcost across processes, through the real binary on loopback: two ranks train as one
// process does, score byte-identically, survive no dead peer, resume at another world size, and
// refuse every bad launch with one error line within the timeout.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "core/atomic_file.h"
#include "launch.h"
#include "model/forward/ranker.h"
#include "model/io/model_file.h"

namespace {

namespace fs = std::filesystem;
using graphcost::read_file;
using graphcost::testing::free_port;
using graphcost::testing::rank_environment;
using graphcost::testing::start_graphcost;
using graphcost::testing::wait_for_exit;

// A run's metrics.jsonl, one object per line.
std::vector<nlohmann::json> metrics(const std::string& run_dir) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_file(run_dir + "/metrics.jsonl"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// Every launch here ends well within this: a rank's start (LibTorch) takes a second or two.
constexpr double kDeadline = 45;
// Collectives and the rendezvous give up after this many seconds in the fault tests.
constexpr int kTimeout = 8;

class DistributedCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_dist_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    // Three validation graphs: two ranks own two and one of them.
    const std::string plan = (root_ / "plan.json").string();
    std::ofstream(plan) << R"([{"collection": "layout:xla:random", "files": [4, 3, 3],
      "nodes": [130, 160], "configs": [14, 20], "configurable_fraction": [0.1, 0.1]}])";
    for (const auto& [name, seed] : {std::pair{"data", "4"}, std::pair{"other", "5"}}) {
      ASSERT_EQ(run({"synth --out " + (root_ / name).string() + " --plan " + plan + " --seed " +
                     seed + " --threads 1"}),
                0);
    }
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  // Runs one process (no launcher) to its end; the status, or -1.
  static int run(const std::string& args, const std::string& name = "single") {
    const pid_t pid = start_graphcost(args, {}, log(name + ".out"), log(name + ".err"));
    const int status = wait_for_exit(pid, kDeadline);
    if (status != 0) ADD_FAILURE() << args << "\n" << read_file(log(name + ".err"));
    return status;
  }

  // Starts `world_size` ranks of the same command; rank r's output in <name>.<r>.out/.err.
  static std::vector<pid_t> start_ranks(const std::string& args, int world_size,
                                        const std::string& name, int port = 0) {
    if (port == 0) port = free_port();
    std::vector<pid_t> pids;
    for (int r = 0; r < world_size; ++r)
      pids.push_back(start_graphcost(args, rank_environment(r, world_size, port),
                                     log(name + "." + std::to_string(r) + ".out"),
                                     log(name + "." + std::to_string(r) + ".err")));
    return pids;
  }
  static void expect_all_succeed(const std::vector<pid_t>& pids, const std::string& name) {
    for (size_t r = 0; r < pids.size(); ++r)
      EXPECT_EQ(wait_for_exit(pids[r], kDeadline), 0)
          << "rank " << r << ": " << read_file(log(name + "." + std::to_string(r) + ".err"));
  }

  // The "graphcost: error: " line of a log, or "" when it has none.
  static std::string error_line(const std::string& file) {
    std::istringstream in(read_file(log(file)));
    for (std::string line; std::getline(in, line);)
      if (line.rfind("graphcost: error: ", 0) == 0) return line;
    return "";
  }

  static std::string log(const std::string& name) { return (root_ / (name)).string(); }
  static std::string data() { return (root_ / "data").string(); }
  static std::string train_args(const std::string& out) {
    return "train --data " + data() + " --collection layout:xla:random --threads 1 --hidden 8 8"
           " --graphs-per-batch 3 --slate-size 6 --log-every 1 --validate-every 3"
           " --valid-configs-per-graph 0 --seed 7 --out " + out;
  }

  static fs::path root_;
};

fs::path DistributedCli::root_;

// Float32 sums in another order (each rank sums its share of the slates, then the shares are
// added) differ in the last bits: the losses agree to about 1e-6 relative (the bound is 10x).
// Adam's step is lr * m / sqrt(v) per weight, whatever the gradient's scale, so a weight whose
// gradient is near zero (its terms cancel) can step by up to lr in another direction: the
// largest difference is bounded by iterations x lr (1e-3, the default), and nearly every weight
// agrees to 1e-5 (measured: 1 or 2 of 9,925 do not; the bound is 2%).
constexpr double kLossTolerance = 1e-5;
constexpr double kLearningRate = 1e-3;
constexpr double kWeightTolerance = 1e-5;
constexpr double kWeightsApartShare = 0.02;

void expect_same_training(const std::string& one, const std::string& two, int64_t first_line) {
  const auto a = metrics(one), b = metrics(two);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = static_cast<size_t>(first_line); i < a.size(); ++i) {
    EXPECT_EQ(a[i]["iteration"], b[i]["iteration"]);
    const double x = a[i]["loss"], y = b[i]["loss"];
    EXPECT_NEAR(x, y, kLossTolerance * std::max(1.0, std::abs(x))) << "line " << i;
    if (a[i].contains("kendall_tau")) {
      EXPECT_NEAR(a[i]["kendall_tau"].get<double>(), b[i]["kendall_tau"].get<double>(), 1e-6);
    }
  }
  graphcost::model::Ranker x = graphcost::model::load_model(one + "/model.pt");
  graphcost::model::Ranker y = graphcost::model::load_model(two + "/model.pt");
  const auto px = x->parameters(), py = y->parameters();
  ASSERT_EQ(px.size(), py.size());
  double largest = 0;
  int64_t weights = 0, apart = 0;
  for (size_t i = 0; i < px.size(); ++i) {
    const torch::Tensor difference = (px[i] - py[i]).abs();
    largest = std::max(largest, difference.max().item<double>());
    weights += difference.numel();
    apart += (difference > kWeightTolerance).sum().item<int64_t>();
  }
  EXPECT_LT(largest, static_cast<double>(a.back()["iteration"]) * kLearningRate);
  EXPECT_LT(static_cast<double>(apart), kWeightsApartShare * static_cast<double>(weights));
  std::printf("1 process vs 2 ranks: largest weight difference %.3g, %lld of %lld weights over %g\n",
              largest, static_cast<long long>(apart), static_cast<long long>(weights),
              kWeightTolerance);
}

TEST_F(DistributedCli, TwoRanksTrainAsOneProcessOnTheSameGlobalBatch) {
  const std::string one = log("one"), two = log("two");
  ASSERT_EQ(run(train_args(one) + " --iterations 6"), 0);
  expect_all_succeed(start_ranks(train_args(two) + " --iterations 6", 2, "two"), "two");
  expect_same_training(one, two, 0);
  EXPECT_EQ(nlohmann::json::parse(read_file(one + "/config.json"))["world_size"], 1);
  EXPECT_EQ(nlohmann::json::parse(read_file(two + "/config.json"))["world_size"], 2);
  // Rank 0 alone shows progress and writes the run.
  EXPECT_EQ(read_file(log("two.1.err")).find("train "), std::string::npos);

  // Resumed at another world size, each continues as the other would.
  fs::copy(one, log("one_then_two"), fs::copy_options::recursive);
  fs::copy(two, log("two_then_one"), fs::copy_options::recursive);
  const std::string more = " --iterations 9 --resume";
  ASSERT_EQ(run(train_args(one) + more), 0);
  expect_all_succeed(start_ranks(train_args(log("one_then_two")) + more, 2, "resume2"), "resume2");
  ASSERT_EQ(run(train_args(log("two_then_one")) + more), 0);
  expect_same_training(one, log("one_then_two"), 6);
  expect_same_training(one, log("two_then_one"), 6);
  EXPECT_EQ(nlohmann::json::parse(read_file(log("one_then_two") + "/config.json"))["world_size"], 2);
}

TEST_F(DistributedCli, EvalAndPredictOnTwoRanksAreByteIdentical) {
  const std::string model = log("scoring_run");
  ASSERT_EQ(run(train_args(model) + " --iterations 3"), 0);
  const std::string eval = "eval --model " + model + " --data " + data() + " --split valid --json --threads 1";
  ASSERT_EQ(run(eval, "eval1"), 0);
  expect_all_succeed(start_ranks(eval, 2, "eval2"), "eval2");
  EXPECT_EQ(read_file(log("eval1.out")), read_file(log("eval2.0.out")));
  EXPECT_NE(read_file(log("eval1.out")).find("kendall_tau"), std::string::npos);
  EXPECT_EQ(read_file(log("eval2.1.out")), "");  // rank 1 writes nothing

  const std::string predict = "predict --model " + model + " --data " + data() +
                              " --split test --threads 1 --out ";
  ASSERT_EQ(run(predict + log("one.csv"), "predict1"), 0);
  expect_all_succeed(start_ranks(predict + log("two.csv"), 2, "predict2"), "predict2");
  EXPECT_EQ(read_file(log("one.csv")), read_file(log("two.csv")));
  EXPECT_GT(read_file(log("one.csv")).size(), 100u);
}

TEST_F(DistributedCli, AKilledRankEndsTheOtherAndTheRunResumes) {
  const std::string out = log("killed");
  const std::string args = train_args(out) + " --iterations 100000 --checkpoint-every 5"
                           " --dist-timeout " + std::to_string(kTimeout);
  const std::vector<pid_t> pids = start_ranks(args, 2, "killed");
  // Wait for training to be under way (a checkpoint written), then kill rank 1.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(out + "/checkpoint.pt") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(out + "/checkpoint.pt"));
  ::kill(pids[1], SIGKILL);
  EXPECT_EQ(wait_for_exit(pids[1], 5), -1);
  const auto killed = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_for_exit(pids[0], kTimeout + 10), 1);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count(),
            kTimeout + 5);
  const std::string line = error_line("killed.0.err");
  EXPECT_NE(line.find("distributed: rank 0 of 2:"), std::string::npos) << line;
  // The last checkpoint is whole: one process resumes it and finishes.
  const int64_t saved = metrics(out).size();
  ASSERT_EQ(run(train_args(out) + " --iterations " + std::to_string(saved + 2) + " --resume"), 0);
  EXPECT_TRUE(fs::exists(out + "/model.pt"));
}

TEST_F(DistributedCli, EveryBadLaunchIsOneErrorLineWithinTheTimeout) {
  const std::string args = train_args(log("bad")) + " --iterations 2 --dist-timeout " +
                           std::to_string(kTimeout);
  using Clock = std::chrono::steady_clock;
  // Each launch is timed from its own start: it must end with status 1 well within the timeout.
  auto expect_error = [&](const std::string& name, pid_t pid, const std::string& part,
                          Clock::time_point start) {
    EXPECT_EQ(wait_for_exit(pid, kTimeout + 15), 1) << name;
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), kTimeout + 10) << name;
    const std::string line = error_line(name + ".err");
    EXPECT_NE(line.find(part), std::string::npos) << name << ": " << line;
  };
  // Every case has a port of its own, chosen before any rank starts, so that no case's rank finds
  // another case's rank on its port (the unreachable case's port must stay without a listener).
  std::vector<int> ports;
  while (ports.size() < 5) {
    const int port = free_port();
    if (std::find(ports.begin(), ports.end(), port) == ports.end()) ports.push_back(port);
  }
  const int unreachable_port = ports[0], alone_port = ports[1], options_port = ports[2],
            data_port = ports[3], dropout_port = ports[4];
  // The two cases that wait out the timeout start first and wait beside the others.
  // Rank 1 of a group whose rank 0 never comes: nobody listens on the port.
  const Clock::time_point unreachable_start = Clock::now();
  const pid_t unreachable =
      start_graphcost(args, rank_environment(1, 2, unreachable_port), log("unreachable.out"),
                      log("unreachable.err"));
  // Rank 0 waiting for a rank 1 that never comes.
  const Clock::time_point alone_start = Clock::now();
  const pid_t alone = start_graphcost(args, rank_environment(0, 2, alone_port), log("alone.out"),
                                      log("alone.err"));
  auto env = rank_environment(2, 2, options_port);
  Clock::time_point start = Clock::now();
  expect_error("rank_too_big", start_graphcost(args, env, log("rank_too_big.out"), log("rank_too_big.err")),
               "RANK: rank 2 is not below the world size 2", start);
  env = rank_environment(0, 2, options_port);
  env.erase("MASTER_ADDR");
  start = Clock::now();
  expect_error("no_master", start_graphcost(args, env, log("no_master.out"), log("no_master.err")),
               "MASTER_ADDR: not set", start);
  // Ranks that disagree: both refuse.
  start = Clock::now();
  const pid_t a = start_graphcost(args, rank_environment(0, 2, options_port), log("options.0.out"), log("options.0.err"));
  const pid_t b = start_graphcost(args + " --lr 0.01", rank_environment(1, 2, options_port), log("options.1.out"), log("options.1.err"));
  expect_error("options.0", a, "distributed: options: rank(s) 1 were started with other options", start);
  expect_error("options.1", b, "distributed: options: rank(s) 1 were started with other options", start);
  std::string other = args;
  other.replace(other.find(data()), data().size(), (root_ / "other").string());
  start = Clock::now();
  const pid_t c = start_graphcost(args, rank_environment(0, 2, data_port), log("data.0.out"), log("data.0.err"));
  const pid_t d = start_graphcost(other, rank_environment(1, 2, data_port), log("data.1.out"), log("data.1.err"));
  expect_error("data.0", c, "distributed: data: rank(s) 1 were started with other data", start);
  expect_error("data.1", d, "distributed: data: rank(s) 1 were started with other data", start);
  // Options that cannot train apart are named.
  start = Clock::now();
  const pid_t e = start_graphcost(args + " --dropout 0.1", rank_environment(0, 2, dropout_port), log("dropout.0.out"), log("dropout.0.err"));
  const pid_t f = start_graphcost(args + " --dropout 0.1", rank_environment(1, 2, dropout_port), log("dropout.1.out"), log("dropout.1.err"));
  expect_error("dropout.0", e, "distributed training: --dropout: cannot train across processes", start);
  expect_error("dropout.1", f, "distributed training: --dropout: cannot train across processes", start);
  expect_error("unreachable", unreachable, "distributed: rendezvous: rank 1 of 2", unreachable_start);
  expect_error("alone", alone,
               "distributed: rendezvous: rank 0 of 2 (master 127.0.0.1:" + std::to_string(alone_port) +
                   "): only 1 of 2 ranks came within 8 s",
               alone_start);
  EXPECT_FALSE(fs::exists(log("bad") + "/model.pt"));
}

}  // namespace
