// graphcost sweep: trains every combination of a sweep file for several seeds, as child
// `graphcost train` processes (N at a time), resumable, and tabulates the validation metrics.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "dist/group.h"
#include "run/run_folder.h"
#include "sweep/results.h"
#include "sweep/spec.h"
#include "train/interrupt.h"

namespace graphcost::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct SweepCommand {
  data::DataOptions source;  // data and collection
  std::string grid, out;
  int64_t seeds = 3;
  uint64_t first_seed = 0;
  uint64_t random_seed = 0;
  int64_t jobs = 1;
  int threads = 0;
  bool dry_run = false;
  std::string baseline;  // combination id or name the others are compared with, by seed
  std::string shard;  // "I/N": train only the runs i with i % N == I
};

// Which share of the runs this process trains: --shard I/N, else a launcher's rank and world
// size (torchrun, srun), else all of them. The shares need no other coordination: each run has
// its own folder, and a sweep run once more over the merged folders tabulates them all.
std::pair<int64_t, int64_t> sweep_shard(const std::string& flag) {
  if (flag.empty()) {
    const auto env = dist::launcher_environment();
    const bool torchrun = env.count("WORLD_SIZE") > 0;
    const char* size = torchrun ? "WORLD_SIZE" : "SLURM_NTASKS";
    const char* rank = torchrun ? "RANK" : "SLURM_PROCID";
    if (env.count(size) == 0 || env.count(rank) == 0) return {0, 1};
    return sweep_shard(env.at(rank) + "/" + env.at(size));
  }
  const size_t slash = flag.find('/');
  int64_t index = -1, count = 0;
  try {
    size_t used_index = 0, used_count = 0;
    if (slash != std::string::npos) {
      index = std::stoll(flag.substr(0, slash), &used_index);
      count = std::stoll(flag.substr(slash + 1), &used_count);
    }
    if (used_index != slash || used_count != flag.size() - slash - 1) count = 0;
  } catch (const std::exception&) {
    count = 0;
  }
  check_data(count >= 1 && index >= 0 && index < count, "sweep", "--shard",
             "expected I/N with 0 <= I < N, got '" + flag + "'");
  return {index, count};
}

// One (combination, seed) pair and where its files live.
struct PlannedRun {
  const sweep::Combination* combination = nullptr;
  uint64_t seed = 0;
  std::string name;  // "<id>-s<seed>"
  fs::path run_dir, config_path, log_path, status_path;
};

json read_json_file(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::exception& e) {
    throw Error(path, "", std::string("not valid JSON: ") + e.what());
  }
}

// A run's status file: {"status": "done" | "failed", "seconds": ..., "metrics": {...}}.
sweep::RunResult read_status(const PlannedRun& run) {
  sweep::RunResult r;
  r.combination = run.combination->id;
  r.seed = run.seed;
  if (!fs::exists(run.status_path)) return r;
  const json j = read_json_file(run.status_path.string());
  r.seconds = j.value("seconds", 0.0);
  const std::string status = j.value("status", "");
  r.done = status == "done";
  r.failed = status == "failed";
  if (j.contains("metrics")) r.metrics = j["metrics"];
  return r;
}

void write_status(const PlannedRun& run, const std::string& status, double seconds,
                  const json& metrics) {
  write_file_atomically(run.status_path.string(),
                        json{{"status", status}, {"seconds", seconds}, {"metrics", metrics}}.dump(2) +
                            "\n");
}

std::string last_line(const fs::path& log) {
  std::string text;
  try {
    text = read_file(log.string());
  } catch (const Error&) {
    return "";
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const size_t cut = text.find_last_of("\n\r");
  return cut == std::string::npos ? text : text.substr(cut + 1);
}

// This binary's path: executed by name, a run shows up as `graphcost train` in ps and pkill
// (through /proc/self/exe it would be called "exe").
std::string own_binary() {
  std::error_code error;
  const fs::path path = fs::read_symlink("/proc/self/exe", error);
  return error || path.empty() ? std::string("/proc/self/exe") : path.string();
}

// Starts `graphcost train` for a run, its output appended to the run's log.
pid_t launch(const PlannedRun& run, const SweepCommand& c, int threads) {
  const std::string binary = own_binary();
  std::vector<std::string> args = {binary, "train", "--out", run.run_dir.string(),
                                   "--threads", std::to_string(threads)};
  if (run::RunFolder(run.run_dir.string()).has_checkpoint()) {
    args.push_back("--resume");  // the stored options, data and seed included
  } else {
    std::error_code ignored;
    fs::remove_all(run.run_dir, ignored);  // a start that never reached a checkpoint
    args.insert(args.end(), {"--config", run.config_path.string(), "--data", c.source.data,
                             "--collection", c.source.collection, "--seed", std::to_string(run.seed)});
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = run.log_path.string();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  check_data(pid >= 0, "sweep", "", "cannot start a training process");
  if (pid == 0) {
    // A run outlives no sweep: if the sweep dies (even by SIGKILL) the run is asked to stop at
    // a checkpoint, and the next sweep resumes it.
    prctl(PR_SET_PDEATHSIG, SIGINT);
    if (getppid() != parent) _exit(130);
    // A sweep's share runs alone: its runs must not try to join the launcher's process group.
    setenv("WORLD_SIZE", "1", 1);
    std::FILE* out = std::freopen(log.c_str(), "a", stdout);
    if (out == nullptr || dup2(fileno(stdout), STDERR_FILENO) < 0) _exit(127);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

void run(const SweepCommand& c) {
  check_data(c.seeds > 0, "sweep", "--seeds", "must be positive");
  check_data(c.jobs > 0, "sweep", "--jobs", "must be positive");
  const json spec = read_json_file(c.grid);
  const std::vector<sweep::Combination> combinations =
      sweep::expand_sweep(spec, c.random_seed, c.grid);

  std::vector<uint64_t> seeds;
  for (int64_t s = 0; s < c.seeds; ++s) seeds.push_back(c.first_seed + s);
  json plan = {{"data", c.source.data}, {"collection", c.source.collection}, {"seeds", seeds},
               {"combinations", json::array()}};
  for (const auto& combination : combinations) {
    plan["combinations"].push_back({{"id", combination.id},
                                    {"name", combination.name},
                                    {"settings", combination.settings},
                                    {"options", combination.options}});
  }
  // Every combination's options are read and checked as train will, before any run starts: a
  // bad key or value (the model's options too) is one error here, not a failure in every child.
  sweep::check_combinations(combinations, c.source.collection, c.grid);
  // An unknown --baseline is an error now, not after every run has trained.
  sweep::summarise(combinations, {}, c.baseline);
  if (c.dry_run) {
    for (const auto& combination : combinations)
      std::printf("%s  %s\n", combination.id.c_str(), combination.name.c_str());
    std::printf("%zu combinations x %zu seeds = %zu runs\n", combinations.size(), seeds.size(),
                combinations.size() * seeds.size());
    return;
  }

  // The plan is fixed at the first call; a later call with the same plan resumes it.
  const fs::path out(c.out);
  std::error_code ignored;
  fs::create_directories(out / "runs", ignored);
  fs::create_directories(out / "configs", ignored);
  check_data(fs::is_directory(out / "runs"), c.out, "", "cannot create the sweep directory");
  const fs::path plan_path = out / "sweep.json";
  if (fs::exists(plan_path)) {
    check_data(read_json_file(plan_path.string()) == plan, plan_path.string(), "",
               "this folder holds a different sweep (grid, seeds, data or collection); use "
               "another --out, or the same arguments to resume");
  } else {
    write_file_atomically(plan_path.string(), plan.dump(2) + "\n");
  }

  std::vector<PlannedRun> runs;
  for (const auto& combination : combinations) {
    for (uint64_t seed : seeds) {
      PlannedRun r;
      r.combination = &combination;
      r.seed = seed;
      r.name = combination.id + "-s" + std::to_string(seed);
      r.run_dir = out / "runs" / r.name;
      r.config_path = out / "configs" / (r.name + ".json");
      r.log_path = out / "runs" / (r.name + ".log");
      r.status_path = out / "runs" / (r.name + ".status.json");
      runs.push_back(r);
    }
  }
  const auto [shard, shards] = sweep_shard(c.shard);
  std::vector<size_t> pending;
  size_t share = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (static_cast<int64_t>(i) % shards != shard) continue;
    ++share;
    if (!read_status(runs[i]).done) pending.push_back(i);
  }
  std::fprintf(stderr, "sweep: %zu combinations x %zu seeds, %zu runs to go (%zu done)%s\n",
               combinations.size(), seeds.size(), pending.size(), share - pending.size(),
               shards > 1 ? (" in share " + std::to_string(shard) + "/" + std::to_string(shards) +
                             " of " + std::to_string(runs.size()) + " runs")
                                .c_str()
                          : "");

  const int cores = c.threads > 0 ? c.threads
                                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::max<int>(1, cores / static_cast<int>(c.jobs));
  train::install_interrupt_handler();
  std::map<pid_t, std::pair<size_t, std::chrono::steady_clock::time_point>> running;
  size_t next = 0;
  int64_t finished = 0, failed = 0;
  bool forwarded = false;
  Progress progress("sweep", static_cast<int64_t>(pending.size()), "runs");
  while (next < pending.size() || !running.empty()) {
    const bool stopping = train::stop_requested();
    while (!stopping && next < pending.size() && static_cast<int64_t>(running.size()) < c.jobs) {
      const PlannedRun& r = runs[pending[next++]];
      if (!run::RunFolder(r.run_dir.string()).has_checkpoint()) {
        json options = r.combination->options;
        write_file_atomically(r.config_path.string(), options.dump(2) + "\n");
      }
      running[launch(r, c, threads)] = {pending[next - 1], std::chrono::steady_clock::now()};
    }
    if (stopping && !forwarded) {
      // Children share the terminal's process group and usually got the signal already; a
      // sweep stopped by `kill` (SIGINT or SIGTERM) passes it on so every run checkpoints.
      for (const auto& [pid, _] : running) kill(pid, SIGINT);
      forwarded = true;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const PlannedRun& r = runs[it->second.first];
    const double seconds =
        read_status(r).seconds +
        std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.second)
            .count();
    running.erase(it);
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const run::RunFolder folder(r.run_dir.string());
    if (ok && fs::exists(folder.model_path())) {
      write_status(r, "done", seconds, sweep::final_validation(read_file(folder.metrics_path())));
      ++finished;
    } else if (train::stop_requested()) {
      write_status(r, "interrupted", seconds, json::object());
    } else {
      write_status(r, "failed", seconds, json::object());
      std::fprintf(stderr, "\nsweep: %s failed: %s\n", r.name.c_str(),
                   last_line(r.log_path).c_str());
      ++failed;
    }
    progress.update(finished + failed, "running " + std::to_string(running.size()));
  }
  progress.finish();

  std::vector<sweep::RunResult> results;
  for (const PlannedRun& r : runs) results.push_back(read_status(r));
  const sweep::Summary summary = sweep::summarise(combinations, results, c.baseline);
  const std::string markdown = sweep::to_markdown(summary);
  write_file_atomically((out / "results.md").string(), markdown);
  write_file_atomically((out / "results.csv").string(), sweep::to_csv(summary));
  write_file_atomically((out / "results.html").string(),
                        sweep::to_html(summary, "graphcost sweep: " + c.source.collection));
  std::printf("%s", markdown.c_str());
  check_data(!train::stop_requested(), c.out, "",
             "interrupted; run the same command again to resume");
  check_data(failed == 0, c.out, "",
             std::to_string(failed) + " run(s) failed; their logs are in " +
                 (out / "runs").string() + " (run the same command again to retry them)");
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepCommand>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Train every combination of a sweep file for several seeds and tabulate them");
  options->source.collection.clear();
  const auto data = add_data_options(cmd, options->source, {"data", "collection"});
  data.at("data")->required();
  data.at("collection")->required();
  cmd->add_option("--grid", options->grid,
                  "Sweep file (JSON: base, variants, grid, random; see docs/sweep.md)")
      ->required();
  cmd->add_option("--out", options->out, "Sweep folder (runs, results.md/.csv/.html)");
  cmd->add_option("--seeds", options->seeds, "Seeds per combination")->capture_default_str();
  cmd->add_option("--first-seed", options->first_seed, "The first seed")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_option("--random-seed", options->random_seed, "Seed for drawing random-search samples")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_option("--jobs", options->jobs, "Runs trained at the same time")->capture_default_str();
  add_threads_option(cmd, options->threads, "Threads shared by the jobs");
  cmd->add_flag("--dry-run", options->dry_run, "List the combinations and stop");
  cmd->add_option("--baseline", options->baseline,
                  "Combination (id or name) the others are compared with: the tables get, per "
                  "metric, the difference paired by seed with its 95% t interval");
  cmd->add_option("--shard", options->shard,
                  "I/N: train only runs I, I+N, I+2N, ... of the plan (default under torchrun or "
                  "srun: RANK/WORLD_SIZE); run the sweep once more over the merged folder for "
                  "the full tables");
  cmd->callback([options] {
    check_data(options->dry_run || !options->out.empty(), "sweep", "--out", "is required");
    run(*options);
  });
}

}  // namespace graphcost::cli
