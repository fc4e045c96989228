// A sweep's scheduler: its share of the runs, the run plan, status files, and whole sweeps
// trained by a stand-in for `graphcost train` (a shell script), so the exact results are known.
#include "sweep/scheduler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "../io/temp_dir.h"
#include "core/atomic_file.h"
#include "core/error.h"

namespace graphcost::sweep {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string shard_error(const std::string& flag) {
  try {
    sweep_shard(flag, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepScheduler, ShardFromTheFlagOrTheLauncher) {
  EXPECT_EQ(sweep_shard("1/3", {}), (std::pair<int64_t, int64_t>{1, 3}));
  EXPECT_EQ(sweep_shard("0/1", {}), (std::pair<int64_t, int64_t>{0, 1}));
  EXPECT_EQ(sweep_shard("", {}), (std::pair<int64_t, int64_t>{0, 1}));
  // torchrun's variables first, then SLURM's; the flag over both.
  const std::map<std::string, std::string> torchrun = {
      {"RANK", "2"}, {"WORLD_SIZE", "4"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}};
  EXPECT_EQ(sweep_shard("", torchrun), (std::pair<int64_t, int64_t>{2, 4}));
  EXPECT_EQ(sweep_shard("", {{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}}),
            (std::pair<int64_t, int64_t>{1, 2}));
  EXPECT_EQ(sweep_shard("0/2", torchrun), (std::pair<int64_t, int64_t>{0, 2}));
  // A world size without a rank: the whole plan.
  EXPECT_EQ(sweep_shard("", {{"WORLD_SIZE", "4"}}), (std::pair<int64_t, int64_t>{0, 1}));
  for (const std::string bad : {"3/3", "-1/2", "a/2", "1/2x", "12", "1/0", "/2"})
    EXPECT_EQ(shard_error(bad), "sweep: --shard: expected I/N with 0 <= I < N, got '" + bad + "'")
        << bad;
}

std::vector<Combination> two_combinations() {
  return {{"c000", "lr=0.1", {{"lr", 0.1}}, {{"lr", 0.1}}},
          {"c001", "lr=0.5", {{"lr", 0.5}}, {{"lr", 0.5}}}};
}

TEST(SweepScheduler, PlanIsCombinationMajorWithAFolderLogStatusAndConfigPerRun) {
  const std::vector<Combination> combinations = two_combinations();
  const std::vector<PlannedRun> runs = plan_runs(combinations, {5, 6}, "out");
  ASSERT_EQ(runs.size(), 4u);
  const std::vector<std::string> names = {"c000-s5", "c000-s6", "c001-s5", "c001-s6"};
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].name, names[i]);
    EXPECT_EQ(runs[i].combination, &combinations[i / 2]);
    EXPECT_EQ(runs[i].seed, 5 + i % 2);
  }
  EXPECT_EQ(runs[1].run_dir, fs::path("out/runs/c000-s6"));
  EXPECT_EQ(runs[1].config_path, fs::path("out/configs/c000-s6.json"));
  EXPECT_EQ(runs[1].log_path, fs::path("out/runs/c000-s6.log"));
  EXPECT_EQ(runs[1].status_path, fs::path("out/runs/c000-s6.status.json"));
}

class SweepRuns : public ::testing::Test {
 protected:
  void SetUp() override {
    // Stands in for `graphcost train --out DIR --threads T --config C --data D --collection X
    // --seed S`: counts its starts, fails on lr 0.5, else writes a model and a validation line
    // whose tau is seed / 10.
    program_ = (dir_ / "train.sh").string();
    write_file_atomically(program_,
                          "#!/bin/sh\n"
                          "echo \"$*\" >> \"" +
                              (dir_ / "starts.txt").string() +
                              "\"\n"
                              "if grep -q 0.5 \"$7\"; then echo 'loss diverged'; exit 1; fi\n"
                              "mkdir -p \"$3\" && touch \"$3/model.pt\"\n"
                              "echo \"{\\\"iteration\\\": 10, \\\"kendall_tau\\\": 0.${13}}\" > "
                              "\"$3/metrics.jsonl\"\n");
    fs::permissions(program_, fs::perms::owner_all);
  }

  SweepSettings settings() const {
    SweepSettings s;
    s.data = "data";
    s.collection = "layout:xla:random";
    s.out = (dir_ / "sweep").string();
    s.seeds = 2;
    s.first_seed = 1;
    s.jobs = 2;
    s.threads = 4;
    s.program = program_;
    return s;
  }

  TempDir temp_;
  fs::path dir_ = temp_.path();
  std::string program_;
};

TEST_F(SweepRuns, TrainsEveryRunTabulatesAndRetriesOnlyTheFailedOnes) {
  const std::vector<Combination> combinations = two_combinations();
  SweepOutcome outcome = run_sweep(settings(), combinations);
  EXPECT_EQ(outcome.failed, 2);
  EXPECT_FALSE(outcome.interrupted);
  ASSERT_EQ(outcome.summary.rows.size(), 2u);
  EXPECT_EQ(outcome.summary.metric_names, (std::vector<std::string>{"kendall_tau"}));
  const Row& good = outcome.summary.rows[0];
  EXPECT_EQ(good.done, 2);
  EXPECT_EQ(good.failed, 0);
  EXPECT_DOUBLE_EQ(good.metrics[0].mean, 0.15);  // seeds 1 and 2: tau 0.1 and 0.2
  EXPECT_DOUBLE_EQ(good.metrics[0].std, std::sqrt(0.005));
  EXPECT_EQ(outcome.summary.rows[1].failed, 2);
  // Two jobs share the 4 threads; a fresh run gets its options file, data and seed.
  EXPECT_EQ(read_file((dir_ / "sweep/configs/c000-s1.json").string()), "{\n  \"lr\": 0.1\n}\n");
  const std::string starts = read_file((dir_ / "starts.txt").string());
  EXPECT_NE(starts.find("train --out " + (dir_ / "sweep/runs/c000-s2").string() +
                        " --threads 2 --config " + (dir_ / "sweep/configs/c000-s2.json").string() +
                        " --data data --collection layout:xla:random --seed 2\n"),
            std::string::npos);
  const std::vector<PlannedRun> runs = plan_runs(combinations, {1, 2}, dir_ / "sweep");
  EXPECT_EQ(read_file(runs[2].log_path.string()), "loss diverged\n");
  const RunResult failed = read_status(runs[2]);
  EXPECT_TRUE(failed.failed);
  EXPECT_FALSE(failed.done);
  EXPECT_EQ(read_status(runs[0]).metrics, json::parse(R"({"kendall_tau": 0.1})"));
  EXPECT_EQ(read_file((dir_ / "sweep/results.md").string()), to_markdown(outcome.summary));
  EXPECT_EQ(read_file((dir_ / "sweep/results.csv").string()), to_csv(outcome.summary));

  // Again: only the two failed runs start (and fail) again.
  outcome = run_sweep(settings(), combinations);
  EXPECT_EQ(outcome.failed, 2);
  int64_t lines = 0;
  for (char ch : read_file((dir_ / "starts.txt").string())) lines += ch == '\n';
  EXPECT_EQ(lines, 6);
  EXPECT_EQ(read_file(runs[2].log_path.string()), "loss diverged\nloss diverged\n");

  // Another plan in the same folder is refused.
  SweepSettings other = settings();
  other.seeds = 3;
  try {
    run_sweep(other, combinations);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir_ / "sweep/sweep.json").string() +
                  ": this folder holds a different sweep (grid, seeds, data or collection); use "
                  "another --out, or the same arguments to resume");
  }
}

TEST_F(SweepRuns, AShareTrainsOnlyItsRuns) {
  SweepSettings s = settings();
  s.shard = "1/2";  // runs 1 and 3 of c000-s1, c000-s2, c001-s1, c001-s2
  const SweepOutcome outcome = run_sweep(s, two_combinations());
  EXPECT_EQ(outcome.failed, 1);
  EXPECT_EQ(outcome.summary.rows[0].done, 1);
  EXPECT_EQ(outcome.summary.rows[0].pending, 1);
  EXPECT_DOUBLE_EQ(outcome.summary.rows[0].metrics[0].mean, 0.2);
  EXPECT_EQ(outcome.summary.rows[1].failed, 1);
  EXPECT_EQ(outcome.summary.rows[1].pending, 1);
}

}  // namespace
}  // namespace graphcost::sweep
