#include "sweep/scheduler.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "dist/launch.h"
#include "run/run_folder.h"
#include "sweep/processes.h"
#include "train/interrupt.h"

namespace graphcost::sweep {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json_file(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::exception& e) {
    throw Error(path, "", std::string("not valid JSON: ") + e.what());
  }
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

// The command line of `graphcost train` for a run: a resume where the run reached a
// checkpoint (the stored options, data and seed included), else a fresh start.
ChildCommand train_command(const PlannedRun& run, const SweepSettings& settings,
                           const std::string& program, int threads) {
  ChildCommand command;
  command.args = {
      program, "train", "--out", run.run_dir.string(), "--threads", std::to_string(threads)};
  if (run::RunFolder(run.run_dir.string()).has_checkpoint()) {
    command.args.push_back("--resume");
  } else {
    std::error_code ignored;
    fs::remove_all(run.run_dir, ignored);  // a start that never reached a checkpoint
    command.args.insert(command.args.end(),
                        {"--config", run.config_path.string(), "--data", settings.data,
                         "--collection", settings.collection, "--seed", std::to_string(run.seed)});
  }
  command.log = run.log_path.string();
  // A sweep's share runs alone: its runs must not try to join the launcher's process group.
  command.environment["WORLD_SIZE"] = "1";
  return command;
}

}  // namespace

std::vector<Combination> prepare_sweep(const SweepSettings& settings) {
  check_data(settings.seeds > 0, "sweep", "--seeds", "must be positive");
  check_data(settings.jobs > 0, "sweep", "--jobs", "must be positive");
  const json spec = read_json_file(settings.grid);
  std::vector<Combination> combinations = expand_sweep(spec, settings.random_seed, settings.grid);
  // Every combination's options are read and checked as train will, before any run starts: a
  // bad key or value (the model's options too) is one error here, not a failure in every child.
  check_combinations(combinations, settings.collection, settings.grid);
  // An unknown --baseline is an error now, not after every run has trained.
  summarise(combinations, {}, settings.baseline);
  return combinations;
}

std::pair<int64_t, int64_t> sweep_shard(const std::string& flag,
                                        const std::map<std::string, std::string>& env) {
  if (flag.empty()) {
    const bool torchrun = env.count("WORLD_SIZE") > 0;
    const char* size = torchrun ? "WORLD_SIZE" : "SLURM_NTASKS";
    const char* rank = torchrun ? "RANK" : "SLURM_PROCID";
    if (env.count(size) == 0 || env.count(rank) == 0) return {0, 1};
    return sweep_shard(env.at(rank) + "/" + env.at(size), env);
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

std::vector<PlannedRun> plan_runs(const std::vector<Combination>& combinations,
                                  const std::vector<uint64_t>& seeds, const fs::path& out) {
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
  return runs;
}

RunResult read_status(const PlannedRun& run) {
  RunResult r;
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
  write_file_atomically(
      run.status_path.string(),
      json{{"status", status}, {"seconds", seconds}, {"metrics", metrics}}.dump(2) + "\n");
}

SweepOutcome run_sweep(const SweepSettings& settings,
                       const std::vector<Combination>& combinations) {
  std::vector<uint64_t> seeds;
  for (int64_t s = 0; s < settings.seeds; ++s) seeds.push_back(settings.first_seed + s);
  json plan = {{"data", settings.data},
               {"collection", settings.collection},
               {"seeds", seeds},
               {"combinations", json::array()}};
  for (const auto& combination : combinations) {
    plan["combinations"].push_back({{"id", combination.id},
                                    {"name", combination.name},
                                    {"settings", combination.settings},
                                    {"options", combination.options}});
  }

  // The plan is fixed at the first call; a later call with the same plan resumes it.
  const fs::path out(settings.out);
  std::error_code ignored;
  fs::create_directories(out / "runs", ignored);
  fs::create_directories(out / "configs", ignored);
  check_data(fs::is_directory(out / "runs"), settings.out, "", "cannot create the sweep directory");
  const fs::path plan_path = out / "sweep.json";
  if (fs::exists(plan_path)) {
    check_data(read_json_file(plan_path.string()) == plan, plan_path.string(), "",
               "this folder holds a different sweep (grid, seeds, data or collection); use "
               "another --out, or the same arguments to resume");
  } else {
    write_file_atomically(plan_path.string(), plan.dump(2) + "\n");
  }

  const std::vector<PlannedRun> runs = plan_runs(combinations, seeds, out);
  const auto [shard, shards] = sweep_shard(settings.shard, dist::launcher_environment());
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

  const int cores = settings.threads > 0
                        ? settings.threads
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = std::max<int>(1, cores / static_cast<int>(settings.jobs));
  const std::string program = settings.program.empty() ? own_binary() : settings.program;
  train::install_interrupt_handler();
  SweepOutcome outcome;
  int64_t finished = 0, running = 0;
  Progress progress("sweep", static_cast<int64_t>(pending.size()), "runs");
  run_children(
      static_cast<int64_t>(pending.size()), settings.jobs,
      [&](int64_t i) {
        const PlannedRun& r = runs[pending[i]];
        if (!run::RunFolder(r.run_dir.string()).has_checkpoint())
          write_file_atomically(r.config_path.string(), r.combination->options.dump(2) + "\n");
        ++running;
        return train_command(r, settings, program, threads);
      },
      [&](int64_t i, const ChildExit& exit) {
        const PlannedRun& r = runs[pending[i]];
        const double seconds = read_status(r).seconds + exit.seconds;
        --running;
        const run::RunFolder folder(r.run_dir.string());
        if (exit.succeeded && fs::exists(folder.model_path())) {
          write_status(r, "done", seconds, final_validation(read_file(folder.metrics_path())));
          ++finished;
        } else if (train::stop_requested()) {
          write_status(r, "interrupted", seconds, json::object());
        } else {
          write_status(r, "failed", seconds, json::object());
          std::fprintf(stderr, "\nsweep: %s failed: %s\n", r.name.c_str(),
                       last_line(r.log_path).c_str());
          ++outcome.failed;
        }
        progress.update(finished + outcome.failed, "running " + std::to_string(running));
      });
  progress.finish();

  std::vector<RunResult> results;
  for (const PlannedRun& r : runs) results.push_back(read_status(r));
  outcome.summary = summarise(combinations, results, settings.baseline);
  outcome.interrupted = train::stop_requested();
  write_file_atomically((out / "results.md").string(), to_markdown(outcome.summary));
  write_file_atomically((out / "results.csv").string(), to_csv(outcome.summary));
  write_file_atomically((out / "results.html").string(),
                        to_html(outcome.summary, "graphcost sweep: " + settings.collection));
  return outcome;
}

}  // namespace graphcost::sweep
