// graphcost study end to end on a tiny synthetic tile collection: trials are trained, recorded in
// a SQLite study, pruned or completed, their run folders say how they ended, a second command adds
// trials to the finished study, two worker processes share one study without running a trial
// twice, and show / export / report read it back. Bad spaces and storage URLs are one line.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../study/postgres_server.h"
#include "core/atomic_file.h"
#include "kernel_tuner_caches.h"
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;
namespace fs = std::filesystem;
using nlohmann::json;

class StudyCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_study_cli_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const std::string plan = (root_ / "plan.json").string();
    std::ofstream(plan) << R"([{"collection": "tile:xla", "files": [4, 2, 0], "nodes": [20, 30],
                                "configs": [16, 16], "configurable_fraction": [0.1, 0.1]},
                               {"collection": "layout:xla:default", "files": [2, 1, 0], "nodes": [128, 160],
                                "configs": [16, 16], "configurable_fraction": [0.2, 0.2]}])";
    std::string output;
    ASSERT_EQ(run_graphcost("synth --out " + path("data") + " --plan " + plan + " --seed 4 --threads 1",
                            &output),
              0)
        << output;
    std::ofstream(path("space.json")) << R"({
      "lr": {"type": "float", "low": 0.0001, "high": 0.01, "log": true},
      "model.hidden": {"type": "categorical", "choices": [[8], [16, 16]]}})";
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static std::string path(const std::string& name) { return (root_ / name).string(); }
  static std::string study(const std::string& name, const std::string& extra) {
    return "study --data " + path("data") + " --collection tile:xla --space " + path("space.json") +
           " --storage sqlite:///" + path(name + ".db") + " --study " + name + " --out " +
           path(name + "-runs") + " --iterations 6 --validate-every 2 --graphs-per-batch 2 " +
           "--slate-size 4 --threads 1 " + extra;
  }
  static json exported(const std::string& name) {
    auto [status, output] = run_graphcost("study export --storage sqlite:///" + path(name + ".db") +
                                              " --study " + name + " --format json",
                                          graphcost::testing::Streams::Stdout)
                                .pair();
    EXPECT_EQ(status, 0) << output;
    return json::parse(output, nullptr, false);
  }
  static fs::path root_;
};

fs::path StudyCli::root_;

TEST_F(StudyCli, TrialsAreTrainedRecordedAndAddedTo) {
  std::string output;
  ASSERT_EQ(run_graphcost(study("first", "--trials 3 --sampler random --pruner none --sampler-seed 1"), &output),
            0)
      << output;
  json trials = exported("first");
  ASSERT_TRUE(trials.is_array()) << trials;
  ASSERT_EQ(trials.size(), 3u);
  for (const json& t : trials) {
    EXPECT_EQ(t["state"], "complete") << t;
    EXPECT_TRUE(t["value"].is_number()) << t;
    const double lr = t["params"]["lr"].get<double>();
    EXPECT_GE(lr, 0.0001);
    EXPECT_LE(lr, 0.01);
    // Validation every 2 of 6 iterations: three intermediate values.
    EXPECT_EQ(t["intermediate"].size(), 3u) << t;
    const std::string run = t["run_dir"];
    EXPECT_TRUE(fs::exists(run + "/model.pt")) << run;
    const json trial = json::parse(graphcost::read_file(run + "/trial.json"));
    EXPECT_EQ(trial["state"], "complete");
    EXPECT_EQ(trial["value"], t["value"]);
    EXPECT_EQ(trial["params"], t["params"]);
    // The trial trained with the sampled options.
    const json config = json::parse(graphcost::read_file(run + "/config.json"));
    EXPECT_EQ(config["lr"], t["params"]["lr"]);
    EXPECT_EQ(config["model"]["hidden"], t["params"]["model.hidden"]);
  }
  // More trials for the same study: it goes on from 3 to 5.
  ASSERT_EQ(run_graphcost(study("first", "--trials 5 --sampler random --pruner none --sampler-seed 1"), &output),
            0)
      << output;
  trials = exported("first");
  ASSERT_EQ(trials.size(), 5u);
  std::set<int64_t> numbers;
  for (const json& t : trials) numbers.insert(t["number"].get<int64_t>());
  EXPECT_EQ(numbers, (std::set<int64_t>{0, 1, 2, 3, 4}));
  // resume: the stored settings (base options, space, sampler, folder) to a new total.
  ASSERT_EQ(run_graphcost("study resume --storage sqlite:///" + path("first.db") +
                              " --study first --trials 6",
                          &output),
            0)
      << output;
  trials = exported("first");
  ASSERT_EQ(trials.size(), 6u);
  EXPECT_EQ(trials[5]["state"], "complete") << trials[5];
  EXPECT_EQ(trials[5]["run_dir"], path("first-runs") + "/trial-0005");
  EXPECT_EQ(trials[5]["intermediate"].size(), 3u);  // the stored base: 6 iterations, every 2
  // With nothing left to do, resume trains nothing.
  ASSERT_EQ(run_graphcost("study resume --storage sqlite:///" + path("first.db") + " --study first",
                          &output),
            0)
      << output;
  EXPECT_EQ(exported("first").size(), 6u);
  // show names the best trial; csv has a row per trial and a column per parameter.
  auto [status, shown] = run_graphcost("study show --storage sqlite:///" + path("first.db") +
                                       " --study first", graphcost::testing::Streams::Stdout)
                             .pair();
  EXPECT_EQ(status, 0);
  EXPECT_EQ(shown.rfind("study first: 6 trials (6 complete, 0 pruned, 0 failed, 0 running); "
                        "objective tile_score (max)\nbest: trial ", 0),
            0u)
      << shown;
  auto [csv_status, csv] = run_graphcost("study export --storage sqlite:///" + path("first.db") +
                                         " --study first --format csv",
                                         graphcost::testing::Streams::Stdout)
                               .pair();
  EXPECT_EQ(csv_status, 0);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "number,state,value,run_dir,lr,model.hidden,message");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);
  ASSERT_EQ(run_graphcost("study report --storage sqlite:///" + path("first.db") +
                              " --study first --out " + path("report.html"),
                          &output),
            0)
      << output;
  const std::string html = graphcost::read_file(path("report.html"));
  for (const char* part : {"Optimisation history", "Intermediate values", "Parallel coordinates",
                           "Parameter importance", "<svg"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
}

// A study of neural trials on Kernel Tuner caches starts from train::tabular_defaults, as train
// does: the trial trains the MLP over one-hot parameter values, with the options given and the
// sampled ones over them.
TEST_F(StudyCli, NeuralTrialsOnKernelTunerCachesStartFromTheTabularDefaults) {
  fs::create_directories(root_ / "kt");
  graphcost::testing::write_device_cache(path("kt/a100.json"), "NVIDIA A100-PCIE-40GB", 1.0, 5.0);
  graphcost::testing::write_device_cache(path("kt/a4000.json"), "NVIDIA RTX A4000", 2.0, 6.0);
  auto [status, output] =
      run_graphcost("study --data " + path("kt") + " --space " + path("space.json") +
                    " --storage sqlite:///" + path("kt.db") + " --study kt --out " +
                    path("kt-runs") + " --iterations 4 --validate-every 2 --slate-size 4" +
                    " --threads 1 --trials 1 --sampler random --pruner none --sampler-seed 1")
          .pair();
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("study: Kernel Tuner records: the trials start from the defaults for "
                        "tabular data (--collection tile:xla, --graphs-per-batch 2, --iterations "
                        "3000, --architecture mlp, --config-one-hot 16, --dropout 0.3, "
                        "--slate-size 256; docs/kernel-tuner.md); options given override them\n"),
            std::string::npos)
      << output;
  // A bad space on caches is still one line: the defaults' line waits until the study is open.
  std::ofstream(path("kt_bad_space.json"))
      << R"({"lr": {"type": "float", "low": 0.1, "high": 0.01}})";
  auto [bad_status, bad_output] =
      run_graphcost("study --data " + path("kt") + " --space " + path("kt_bad_space.json") +
                    " --storage sqlite:///" + path("kt_bad.db") + " --study kt --threads 1")
          .pair();
  EXPECT_EQ(bad_status, 1) << bad_output;
  EXPECT_EQ(std::count(bad_output.begin(), bad_output.end(), '\n'), 1) << bad_output;
  EXPECT_EQ(bad_output.rfind("graphcost: error: ", 0), 0u) << bad_output;
  const json trials = exported("kt");
  ASSERT_TRUE(trials.is_array() && trials.size() == 1u) << trials;
  EXPECT_EQ(trials[0]["state"], "complete") << trials;
  const json config =
      json::parse(graphcost::read_file(trials[0]["run_dir"].get<std::string>() + "/config.json"));
  EXPECT_EQ(config["model"]["architecture"], "mlp");
  EXPECT_EQ(config["model"]["config_one_hot"], 16);
  EXPECT_EQ(config["model"]["config_values"], json::parse("[[4, 5, 6, 7, 8], [0, 1, 2]]"));
  EXPECT_EQ(config["model"]["dropout"], 0.3);
  EXPECT_EQ(config["graphs_per_batch"], 2);                                   // the tabular default
  EXPECT_EQ(config["iterations"], 4);                                         // given
  EXPECT_EQ(config["slate_size"], 4);                                         // given
  EXPECT_EQ(config["model"]["hidden"], trials[0]["params"]["model.hidden"]);  // sampled
}

TEST_F(StudyCli, TwoWorkersShareOneStudyWithoutATrialTwice) {
  std::string output;
  ASSERT_EQ(run_graphcost(study("pair", "--trials 6 --workers 2 --sampler tpe --pruner median"),
                          &output),
            0)
      << output;
  const json trials = exported("pair");
  ASSERT_EQ(trials.size(), 6u) << output;
  std::set<std::string> runs, workers;
  for (const json& t : trials) {
    EXPECT_NE(t["state"], "running") << t;
    EXPECT_NE(t["state"], "failed") << t;
    runs.insert(t["run_dir"].get<std::string>());
    workers.insert(t["worker"].get<std::string>());
  }
  EXPECT_EQ(runs.size(), 6u);     // no trial trained twice
  EXPECT_EQ(workers.size(), 2u);  // both processes worked
}

TEST_F(StudyCli, XGBoostTrialsAreXGBoostRuns) {
  std::ofstream(path("xgb_space.json")) << R"({
      "xgboost.eta": {"type": "float", "low": 0.05, "high": 0.3, "log": true},
      "xgboost.max_depth": {"type": "int", "low": 2, "high": 4}})";
  const std::string xgb_study = "study --model-type xgboost --data " + path("data") +
                                " --collection tile:xla --space " + path("xgb_space.json") +
                                " --storage sqlite:///" + path("xgb.db") + " --study xgb --out " +
                                path("xgb-runs") + " --trials 2 --sampler random --threads 1 " +
                                "--config " + path("xgb_base.json");
  std::string output;
  ASSERT_EQ(run_graphcost(xgb_study, &output), 1) << output;  // no such --config file
  std::ofstream(path("xgb_base.json")) << R"({"xgboost": {"rounds": 20}})";
  ASSERT_EQ(run_graphcost(xgb_study, &output), 0) << output;
  const json trials = exported("xgb");
  ASSERT_EQ(trials.size(), 2u);
  for (const json& t : trials) {
    EXPECT_EQ(t["state"], "complete") << t;
    const std::string run = t["run_dir"];
    const json config = json::parse(graphcost::read_file(run + "/config.json"));
    EXPECT_EQ(config["model_type"], "xgboost");
    EXPECT_EQ(config["xgboost"]["rounds"], 20);
    EXPECT_EQ(config["xgboost"]["max_depth"], t["params"]["xgboost.max_depth"]);
    // The value is what eval reports for the run on the validation split.
    auto [status, eval] = run_graphcost("eval --model " + run + " --data " + path("data") +
                                            " --split valid --threads 1 --json",
                                        graphcost::testing::Streams::Stdout)
                              .pair();
    ASSERT_EQ(status, 0) << eval;
    const json metrics = json::parse(eval, nullptr, false);
    ASSERT_FALSE(metrics.is_discarded()) << eval;
    EXPECT_DOUBLE_EQ(metrics["tile_score"].get<double>(), t["value"].get<double>()) << eval;
  }
}

// A worker killed during its trial: the next worker fails the trial once its heartbeat is
// stale, and the grid point it held runs again as a new trial.
TEST_F(StudyCli, AKilledWorkersTrialIsFailedAndItsGridPointRetried) {
  std::ofstream(path("grid_space.json"))
      << R"({"model.hidden": {"type": "categorical", "choices": [[8], [16]]}})";
  const std::string db = path("killed.db");
  auto command = [&](const std::string& iterations, const std::string& extra) {
    return std::string(GRAPHCOST_BINARY) + " study --data " + path("data") +
           " --collection tile:xla --space " + path("grid_space.json") + " --storage sqlite:///" +
           db + " --study killed --out " + path("killed-runs") + " --trials 2 --sampler grid " +
           "--graphs-per-batch 2 --slate-size 4 --threads 1 --iterations " + iterations + " " + extra;
  };
  // A worker that would train for ever, in the background.
  FILE* pipe = ::popen((command("100000000", "--validate-every 1000000") + " > " +
                        path("killed.log") + " 2>&1 & echo $!")
                           .c_str(),
                       "r");
  ASSERT_NE(pipe, nullptr);
  char pid_text[32] = {0};
  ASSERT_NE(std::fgets(pid_text, sizeof pid_text, pipe), nullptr);
  ::pclose(pipe);
  const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
  // Until its trial's run folder exists: the trial is claimed and training.
  for (int i = 0; i < 1200 && !fs::exists(path("killed-runs") + "/trial-0000/config.json"); ++i)
    ::usleep(100000);
  ::kill(pid, SIGKILL);
  for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) ::usleep(100000);
  ASSERT_TRUE(fs::exists(path("killed-runs") + "/trial-0000/config.json"))
      << graphcost::read_file(path("killed.log"));
  ::sleep(2);
  std::string output;
  ASSERT_EQ(run_graphcost(command("6", "--validate-every 2 --heartbeat-timeout 1")
                              .substr(std::string(GRAPHCOST_BINARY).size() + 1),
                          &output),
            0)
      << output;
  const json trials = exported("killed");
  ASSERT_EQ(trials.size(), 2u) << trials;
  EXPECT_EQ(trials[0]["state"], "failed");
  EXPECT_EQ(trials[0]["message"].get<std::string>().rfind("timed out: no heartbeat", 0), 0u)
      << trials[0];
  EXPECT_EQ(trials[1]["state"], "complete");
  EXPECT_EQ(trials[1]["params"], trials[0]["params"]);  // the same grid point, run again
}

// Two workers on two "machines" (separate working folders) share one PostgreSQL study.
TEST_F(StudyCli, TwoWorkersWithTheirOwnFoldersShareAPostgresStudy) {
  graphcost::study::PostgresServer server;
  if (!server.ok) GTEST_SKIP() << "PostgreSQL: " << server.why;
  const std::string url = server.fresh_database_url();
  ASSERT_FALSE(url.empty());
  auto command = [&](const std::string& folder) {
    return std::string(GRAPHCOST_BINARY) + " study --data " + path("data") +
           " --collection tile:xla --space " + path("space.json") + " --storage '" + url +
           "' --study shared --out " + path(folder) + " --trials 6 --sampler tpe --pruner none " +
           "--iterations 6 " +
           "--validate-every 2 --graphs-per-batch 2 --slate-size 4 --threads 1";
  };
  const std::string both = "(" + command("machine-a") + " > " + path("a.log") + " 2>&1 & " +
                           command("machine-b") + " > " + path("b.log") + " 2>&1; wait)";
  ASSERT_EQ(std::system(both.c_str()), 0);
  auto [status, text] = run_graphcost("study export --storage '" + url + "' --study shared",
                                      graphcost::testing::Streams::Stdout)
                            .pair();
  ASSERT_EQ(status, 0) << text;
  const json trials = json::parse(text);
  ASSERT_EQ(trials.size(), 6u) << graphcost::read_file(path("a.log"))
                               << graphcost::read_file(path("b.log"));
  std::set<int64_t> numbers;
  int in_a = 0, in_b = 0;
  for (const json& t : trials) {
    EXPECT_EQ(t["state"], "complete") << t;
    numbers.insert(t["number"].get<int64_t>());
    const std::string run = t["run_dir"];
    in_a += run.find("machine-a") != std::string::npos;
    in_b += run.find("machine-b") != std::string::npos;
    EXPECT_TRUE(fs::exists(run + "/model.pt")) << run;
  }
  EXPECT_EQ(numbers.size(), 6u);
  EXPECT_EQ(in_a + in_b, 6);
}

// Every space file shipped in examples/study/ is one the command takes (its keys are options, its
// conditions name earlier keys): a trial of each trains to the end on the collection it is for.
TEST_F(StudyCli, TheShippedSpacesRunATrial) {
  const fs::path examples = fs::path(GRAPHCOST_SOURCE_DIR) / "examples" / "study";
  const std::vector<std::pair<std::string, std::string>> spaces = {
      {"tile_space.json", "--collection tile:xla"},
      {"layout_space.json", "--collection layout:xla:default"},
      {"alexnet_space.json", "--collection layout:xla:default"},
      {"xgboost_space.json", "--collection tile:xla --model-type xgboost"}};
  std::set<std::string> shipped;
  for (const auto& entry : fs::directory_iterator(examples))
    shipped.insert(entry.path().filename().string());
  std::set<std::string> covered;
  for (const auto& [file, how] : spaces) covered.insert(file);
  EXPECT_EQ(shipped, covered) << "a space file in examples/study/ that this test does not run";
  for (const auto& [file, how] : spaces) {
    const std::string name = "shipped_" + fs::path(file).stem().string();
    auto [status, output] =
        run_graphcost("study --data " + path("data") + " " + how + " --space " +
                      (examples / file).string() + " --storage sqlite:///" + path(name + ".db") +
                      " --study " + name + " --out " + path(name + "-runs") +
                      " --trials 1 --iterations 4 --validate-every 2 " +
                      "--graphs-per-batch 2 --slate-size 4 --threads 1")
            .pair();
    ASSERT_EQ(status, 0) << file << ": " << output;
    const json trials = exported(name);
    ASSERT_EQ(trials.size(), 1u) << file;
    EXPECT_EQ(trials[0]["state"], "complete") << file << ": " << trials.dump();
  }
}

TEST_F(StudyCli, BadSpacesObjectivesAndStorageAreOneLine) {
  std::ofstream(path("bad_space.json")) << R"({"lr": {"type": "float", "low": 0.1, "high": 0.01}})";
  const std::string base = "study --data " + path("data") + " --collection tile:xla --study s " +
                           "--storage sqlite:///" + path("bad.db") + " --threads 1 ";
  auto one_line = [](const std::string& args) {
    auto [status, output] = run_graphcost(args).pair();
    EXPECT_EQ(status, 1) << output;
    EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
    EXPECT_EQ(output.rfind("graphcost: error: ", 0), 0u) << output;
    return output;
  };
  EXPECT_NE(one_line(base + "--space " + path("bad_space.json")).find(path("bad_space.json") + ": lr: "),
            std::string::npos);
  std::ofstream(path("unknown_key.json")) << R"({"lrr": {"type": "float", "low": 0.1, "high": 1}})";
  EXPECT_NE(one_line(base + "--space " + path("unknown_key.json")).find("lrr"), std::string::npos);
  EXPECT_NE(one_line(base + "--space " + path("space.json") + " --objective kendall_tau:up")
                .find("--objective"),
            std::string::npos);
  EXPECT_NE(one_line("study --data " + path("data") + " --collection tile:xla --study s --space " +
                     path("space.json") + " --storage mysql://x --threads 1")
                .find("mysql://x"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(path("bad.db-runs")));
}

}  // namespace
