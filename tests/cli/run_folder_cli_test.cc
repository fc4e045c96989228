// A training run's folder is never lost or left half-written: train and xgb train refuse to
// write over an earlier run (unless --overwrite), --resume refuses options that differ from the
// run's, and options refused before training leave no folder. Also: a bad command line is one
// error line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/atomic_file.h"
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;
namespace fs = std::filesystem;

class RunFolderCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_run_folder_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const std::string plan = (root_ / "plan.json").string();
    std::ofstream(plan) << R"([{"collection": "tile:xla", "files": [3, 0, 1], "nodes": [30, 40],
                                "configs": [12, 12], "configurable_fraction": [0.1, 0.1]}])";
    std::string output;
    ASSERT_EQ(run_graphcost("synth --out " + data() + " --plan " + plan + " --seed 2 --threads 1",
                            &output),
              0)
        << output;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  static std::string data() { return (root_ / "data").string(); }
  static std::string run_dir(const std::string& name) { return (root_ / name).string(); }
  // CLI11 refuses a repeated --iterations and appends a repeated --hidden: `extra` holds only
  // other flags, `hidden` and `iterations` replace the defaults.
  static std::string train(const std::string& out, const std::string& extra = "",
                           const std::string& hidden = "8 8", const std::string& iterations = "3",
                           const std::string& graphs = "2") {
    return "train --data " + data() + " --collection tile:xla --valid-split '' --iterations " +
           iterations + " --graphs-per-batch " + graphs + " --slate-size 4 --hidden " + hidden +
           " --threads 1 --out " + out + " " + extra;
  }
  // The command's output when it is exactly one error line with exit status `status`.
  static std::string one_error_line(const std::string& args, int status = 1) {
    auto [got, output] = run_graphcost(args).pair();
    EXPECT_EQ(got, status) << args << "\n" << output;
    EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << args << "\n" << output;
    EXPECT_EQ(output.rfind("graphcost: error: ", 0), 0u) << args << "\n" << output;
    return output;
  }

  static fs::path root_;
};

fs::path RunFolderCli::root_;

TEST_F(RunFolderCli, TrainAndXgbRefuseToWriteOverARun) {
  const std::string run = run_dir("kept");
  std::string output;
  ASSERT_EQ(run_graphcost(train(run), &output), 0) << output;
  const std::string model = graphcost::read_file(run + "/model.pt");
  const std::string config = graphcost::read_file(run + "/config.json");

  EXPECT_EQ(one_error_line(train(run, "", "4")),
            "graphcost: error: " + run +
                ": already holds a training run (model.pt); --resume continues it, --overwrite "
                "replaces it\n");
  EXPECT_EQ(one_error_line("xgb train --data " + data() + " --rounds 2 --threads 1 --out " + run),
            "graphcost: error: " + run +
                ": already holds a training run (model.pt); --overwrite replaces it\n");
  EXPECT_EQ(graphcost::read_file(run + "/model.pt"), model);
  EXPECT_EQ(graphcost::read_file(run + "/config.json"), config);

  ASSERT_EQ(run_graphcost(train(run, "--overwrite", "4"), &output), 0) << output;
  EXPECT_EQ(nlohmann::json::parse(graphcost::read_file(run + "/config.json"))["model"]["hidden"],
            nlohmann::json::parse("[4]"));
  // xgb train --overwrite leaves no file of the neural run behind.
  ASSERT_EQ(run_graphcost("xgb train --data " + data() + " --rounds 2 --threads 1 --overwrite " +
                              "--out " + run,
                          &output),
            0)
      << output;
  EXPECT_TRUE(fs::exists(run + "/model.xgb"));
  EXPECT_FALSE(fs::exists(run + "/model.pt"));
  EXPECT_FALSE(fs::exists(run + "/checkpoint.pt"));
  EXPECT_FALSE(fs::exists(run + "/metrics.jsonl"));
}

TEST_F(RunFolderCli, ResumeRefusesOptionsThatDifferFromTheRuns) {
  const std::string run = run_dir("resumed");
  std::string output;
  ASSERT_EQ(run_graphcost(train(run), &output), 0) << output;
  const std::string config = graphcost::read_file(run + "/config.json");
  const std::string resume = "train --out " + run + " --resume --threads 1 ";
  EXPECT_EQ(one_error_line(resume + "--collection layout:xla:random --hidden 4 --iterations 5"),
            "graphcost: error: " + run +
                ": --resume: the run keeps its stored options, but these were given otherwise: "
                "collection, model.hidden (only --data, --valid-data, --iterations, "
                "--validate-train-graphs, --checkpoint-seconds, --threads, --precision, "
                "--share-rows may change)\n");
  EXPECT_EQ(one_error_line(resume + "--config " + run + "/config.json"),
            "graphcost: error: train: --config: not with --resume (the run keeps its stored "
            "options)\n");
  EXPECT_EQ(graphcost::read_file(run + "/config.json"), config);
  // The same values again, and a longer run, are fine.
  ASSERT_EQ(run_graphcost(resume + "--collection tile:xla --hidden 8 8 --iterations 5", &output), 0)
      << output;
  EXPECT_EQ(nlohmann::json::parse(graphcost::read_file(run + "/config.json"))["iterations"], 5);
}

TEST_F(RunFolderCli, RefusedOptionsLeaveNoFolder) {
  const std::string run = run_dir("never");
  const std::pair<const char*, const char*> cases[] = {
      {"--lr nan", "train options: lr: must be a positive number"},
      {"--lr -1", "train options: lr: must be a positive number"},
      {"--weight-decay -1", "train options: weight_decay: must be a number >= 0"},
      {"--valid-batch 0", "train options: valid_batch: must be at least 1"},
      {"--swa-every 0", "train options: swa_every: must be at least 1"},
      {"--log-every -1", "train options: log_every: must be at least 1"},
      {"--checkpoint-every -5", "train options: checkpoint_every: must be >= 0"},
      {"--decay-at -5", "train options: decay_at: iterations must be >= 0"},
      {"--prune -5", "train options: prune_hops: must be >= 0, or -1 for no pruning"},
  };
  for (const auto& [flag, message] : cases) {
    const std::string line = one_error_line(train(run, flag));
    EXPECT_NE(line.find(message), std::string::npos) << flag << ": " << line;
    EXPECT_FALSE(fs::exists(run)) << flag;
  }
  EXPECT_EQ(one_error_line(train(run, "", "8 8", "-5")),
            "graphcost: error: train options: iterations: must be >= 0\n");
  EXPECT_EQ(one_error_line(train(run, "", "8 8", "3", "0")),
            "graphcost: error: train options: graphs_per_batch: must be at least 1\n");
  // A config file's number must fit its field.
  const std::string config = run_dir("huge.json");
  graphcost::write_file_atomically(config, R"({"iterations": 1e30})");
  EXPECT_EQ(one_error_line("train --data " + data() + " --config " + config + " --out " + run),
            "graphcost: error: " + config +
                ": train options: iterations: expected an integer in [-9223372036854775808, "
                "9223372036854775807], got 1e+30\n");
  graphcost::write_file_atomically(config, R"({"seed": -1})");
  EXPECT_NE(one_error_line("train --data " + data() + " --config " + config + " --out " + run)
                .find("train options: seed: expected an integer in [0, 18446744073709551615]"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(run));
}

// split writes its parts beside --out and moves them in at the end, and never mixes a new split
// into an earlier one.
TEST_F(RunFolderCli, SplitWritesWholeOrNothing) {
  const fs::path in = root_ / "to_split";
  fs::create_directories(in);
  const fs::path train = root_ / "data" / "npz" / "tile" / "xla" / "train";
  for (const auto& entry : fs::directory_iterator(train))
    fs::copy_file(entry.path(), in / entry.path().filename());
  const std::string out = run_dir("parts");
  std::string output;
  ASSERT_EQ(run_graphcost("split " + in.string() + " --fraction 0.5 --out " + out, &output), 0)
      << output;
  EXPECT_EQ(std::distance(fs::directory_iterator(out + "/train"), fs::directory_iterator()), 3);
  EXPECT_EQ(one_error_line("split " + in.string() + " --out " + out),
            "graphcost: error: " + out +
                ": is not an empty folder; --overwrite replaces its train/ and valid/\n");
  // A test file (no runtimes) sorted last: refused after the others were written.
  const fs::path test = root_ / "data" / "npz" / "tile" / "xla" / "test";
  fs::copy_file(fs::directory_iterator(test)->path(), in / "zz.npz");
  const std::string fresh = run_dir("parts2");
  auto [status, printed] = run_graphcost("split " + in.string() + " --out " + fresh).pair();
  EXPECT_EQ(status, 1);
  EXPECT_NE(printed.find("graphcost: error: " + (in / "zz.npz").string() +
                         ": config_runtime: no runtimes to split\n"),
            std::string::npos)
      << printed;
  EXPECT_FALSE(fs::exists(fresh));
  for (const auto& entry : fs::directory_iterator(root_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  EXPECT_NE(one_error_line("split " + in.string() + " --out " + fresh + " --fraction 0", 105)
                .find("--fraction: must be in (0, 1), got 0"),
            std::string::npos);
  // --overwrite replaces the earlier parts whole.
  fs::remove(in / "zz.npz");
  fs::remove(in / fs::directory_iterator(in)->path().filename());
  ASSERT_EQ(run_graphcost("split " + in.string() + " --overwrite --out " + out, &output), 0)
      << output;
  EXPECT_EQ(std::distance(fs::directory_iterator(out + "/train"), fs::directory_iterator()), 2);
}

// eval and predict name the run when it does not fit what was asked.
TEST_F(RunFolderCli, ScoringNamesTheRunThatDoesNotFit) {
  const std::string run = run_dir("tile_run");
  std::string output;
  ASSERT_EQ(run_graphcost(train(run), &output), 0) << output;
  for (const std::string& command : {std::string("eval"), "predict --out " + run_dir("p.csv")}) {
    EXPECT_EQ(one_error_line(command + " --model " + run + " --data " + data() +
                             " --collection layout:xla:random"),
              "graphcost: error: " + run +
                  ": trained on tile:xla, but collection layout:xla:random was asked: its "
                  "configurations are of another kind\n");
  }
  graphcost::write_file_atomically(run + "/config.json", R"({"collection": )");
  EXPECT_EQ(one_error_line("eval --model " + run + " --data " + data()),
            "graphcost: error: " + run +
                "/config.json: not valid JSON (truncated or damaged?): byte 16: unexpected end of "
                "input; expected '[', '{', or a literal\n");
}

TEST_F(RunFolderCli, ABadCommandLineIsOneErrorLine) {
  EXPECT_EQ(one_error_line("frobnicate", 2),
            "graphcost: error: graphcost: unknown command 'frobnicate' (valid: synth, inspect, "
            "pack, split, ingest, train, sweep, study, xgb, stack, eval, predict, submit, "
            "score, noise, report, tune, serve)\n");
  EXPECT_EQ(one_error_line("xgb bogus", 2),
            "graphcost: error: graphcost xgb: unknown command 'bogus' (valid: train)\n");
  EXPECT_EQ(one_error_line("inspect --bogus " + data(), 109),
            "graphcost: error: graphcost inspect: The following argument was not expected: "
            "--bogus (graphcost inspect --help lists the options)\n");
  // xgb train's flags come from its option table and are refused by the table's checks.
  const std::pair<const char*, const char*> xgb_cases[] = {
      {"--rounds 0", "graphcost: error: xgboost options: rounds: must be at least 1, got 0\n"},
      {"--subsample 0", "graphcost: error: xgboost options: subsample: must be in (0, 1]\n"},
      {"--eta 1.5", "graphcost: error: xgboost options: eta: must be in [0, 1]\n"},
      {"--max-configs -1",
       "graphcost: error: xgboost options: max_configs_per_graph: must be at least 0, got -1\n"},
      {"--layout-nodes -1",
       "graphcost: error: xgboost features: layout_nodes: must be at least 0, got -1\n"},
  };
  for (const auto& [flag, message] : xgb_cases) {
    const std::string args = "xgb train --data " + data() + " --out " + run_dir("xgb_never");
    EXPECT_EQ(one_error_line(args + " " + flag), message);
    EXPECT_FALSE(fs::exists(run_dir("xgb_never"))) << flag;
  }
  // CLI11 alone reads -1 into an unsigned seed as 2^64 - 1 and clamps longer numbers.
  EXPECT_NE(one_error_line(train(run_dir("long"), "", "8 8", "99999999999999999999"), 105)
                .find("--iterations: expected an integer in [-9223372036854775808, "
                      "9223372036854775807], got 99999999999999999999"),
            std::string::npos);
  EXPECT_NE(one_error_line(train(run_dir("seeded"), "--seed -1"), 105)
                .find("--seed: expected an integer in [0, 18446744073709551615], got -1"),
            std::string::npos);
  EXPECT_NE(one_error_line("synth --out " + run_dir("s") + " --seed 99999999999999999999", 105)
                .find("--seed: expected an integer in [0, 18446744073709551615], got "
                      "99999999999999999999"),
            std::string::npos);
  // Scoring in slates of no configuration used to spin for ever.
  const std::string run = run_dir("scored");
  std::string output;
  ASSERT_EQ(run_graphcost(train(run), &output), 0) << output;
  for (const std::string& command : {std::string("eval"), "predict --out " + run_dir("x.csv")}) {
    EXPECT_NE(one_error_line(command + " --model " + run + " --data " + data() +
                                 " --split train --slate-size 0",
                             105)
                  .find("--slate-size: must be at least 1, got 0"),
              std::string::npos)
        << command;
  }
}

}  // namespace
