// Running a sweep: every (combination, seed) pair of a sweep file is a run, trained by a child
// `graphcost train` process (sweep/processes.h) in a folder of its own, N at a time. A sweep
// folder holds the plan (sweep.json), each run's options, folder, log and status file, and the
// result tables; the same call again resumes it, retrying failed and interrupted runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sweep/results.h"
#include "sweep/spec.h"

namespace graphcost::sweep {

// What `graphcost sweep` was asked to do.
struct SweepSettings {
  std::string data, collection;  // what every run trains on
  std::string grid;              // the sweep file
  std::string out;               // the sweep folder
  int64_t seeds = 3;             // seeds per combination: first_seed, first_seed + 1, ...
  uint64_t first_seed = 0;
  uint64_t random_seed = 0;  // draws the sweep file's random samples
  int64_t jobs = 1;          // runs trained at the same time
  int threads = 0;           // threads shared by the jobs (<= 0: all cores)
  std::string baseline;      // combination id or name the others are compared with
  std::string shard;         // "I/N": train only the runs i with i % N == I
  std::string program;       // started as `PROGRAM train ...`; empty: this program
};

// Reads the sweep file and checks the settings, every combination's options (as train will,
// for settings.collection) and the baseline, before any run starts: one Error, not a failure
// in every child. Returns the combinations.
std::vector<Combination> prepare_sweep(const SweepSettings& settings);

// Which share of the runs this process trains, as {I, N}: the flag "I/N", else (flag empty) a
// launcher's rank and world size in env (torchrun's RANK and WORLD_SIZE, else SLURM's
// SLURM_PROCID and SLURM_NTASKS), else {0, 1}. A malformed flag is an Error.
std::pair<int64_t, int64_t> sweep_shard(const std::string& flag,
                                        const std::map<std::string, std::string>& env);

// One (combination, seed) pair and where its files live.
struct PlannedRun {
  const Combination* combination = nullptr;
  uint64_t seed = 0;
  std::string name;  // "<id>-s<seed>"
  std::filesystem::path run_dir, config_path, log_path, status_path;
};

// Every run of a sweep in folder `out`, combination-major: runs/<name>/ (the training run),
// runs/<name>.log, runs/<name>.status.json and configs/<name>.json (its options).
std::vector<PlannedRun> plan_runs(const std::vector<Combination>& combinations,
                                  const std::vector<uint64_t>& seeds,
                                  const std::filesystem::path& out);

// A run's status file: {"status": "done" | "failed" | "interrupted", "seconds", "metrics"}.
// A run without one is pending.
RunResult read_status(const PlannedRun& run);
void write_status(const PlannedRun& run, const std::string& status, double seconds,
                  const nlohmann::json& metrics);

// How a sweep call ended: the tables over every run of the plan (this share's and any other's
// found in the folder), and this call's failed runs.
struct SweepOutcome {
  Summary summary;
  int64_t failed = 0;
  bool interrupted = false;  // stopped by SIGINT or SIGTERM (train/interrupt.h)
};

// Trains this share's runs that are not done (a progress line on stderr, a line per failed
// run), then writes results.md, results.csv and results.html. An Error when the folder holds
// another sweep's plan.
SweepOutcome run_sweep(const SweepSettings& settings, const std::vector<Combination>& combinations);

}  // namespace graphcost::sweep
