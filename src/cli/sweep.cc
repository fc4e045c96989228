// graphcost sweep: trains every combination of a sweep file for several seeds, as child
// `graphcost train` processes (N at a time), resumable, and tabulates the validation metrics.
// The flags and what is printed; the sweep itself is src/sweep's (sweep/scheduler.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "sweep/results.h"
#include "sweep/scheduler.h"

namespace graphcost::cli {

namespace {

struct SweepCommand {
  data::DataOptions source;  // data and collection
  sweep::SweepSettings settings;
  bool dry_run = false;
};

void run_sweep(SweepCommand& c) {
  c.settings.data = c.source.data;
  c.settings.collection = c.source.collection;
  const std::vector<sweep::Combination> combinations = sweep::prepare_sweep(c.settings);
  if (c.dry_run) {
    for (const auto& combination : combinations)
      std::printf("%s  %s\n", combination.id.c_str(), combination.name.c_str());
    const size_t seeds = static_cast<size_t>(c.settings.seeds);
    std::printf("%zu combinations x %zu seeds = %zu runs\n", combinations.size(), seeds,
                combinations.size() * seeds);
    return;
  }
  const sweep::SweepOutcome outcome = sweep::run_sweep(c.settings, combinations);
  std::printf("%s", sweep::to_markdown(outcome.summary).c_str());
  check_data(!outcome.interrupted, c.settings.out, "",
             "interrupted; run the same command again to resume");
  check_data(outcome.failed == 0, c.settings.out, "",
             std::to_string(outcome.failed) + " run(s) failed; their logs are in " +
                 (std::filesystem::path(c.settings.out) / "runs").string() +
                 " (run the same command again to retry them)");
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
  cmd->add_option("--grid", options->settings.grid,
                  "Sweep file (JSON: base, variants, grid, random; see docs/sweep.md)")
      ->required();
  cmd->add_option("--out", options->settings.out, "Sweep folder (runs, results.md/.csv/.html)");
  cmd->add_option("--seeds", options->settings.seeds, "Seeds per combination")
      ->capture_default_str();
  cmd->add_option("--first-seed", options->settings.first_seed, "The first seed")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_option("--random-seed", options->settings.random_seed,
                  "Seed for drawing random-search samples")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_option("--jobs", options->settings.jobs, "Runs trained at the same time")
      ->capture_default_str();
  add_threads_option(cmd, options->settings.threads, "Threads shared by the jobs");
  cmd->add_flag("--dry-run", options->dry_run, "List the combinations and stop");
  cmd->add_option("--baseline", options->settings.baseline,
                  "Combination (id or name) the others are compared with: the tables get, per "
                  "metric, the difference paired by seed with its 95% t interval");
  cmd->add_option("--shard", options->settings.shard,
                  "I/N: train only runs I, I+N, I+2N, ... of the plan (default under torchrun or "
                  "srun: RANK/WORLD_SIZE); run the sweep once more over the merged folder for "
                  "the full tables");
  cmd->callback([options] {
    check_data(options->dry_run || !options->settings.out.empty(), "sweep", "--out", "is required");
    run_sweep(*options);
  });
}

}  // namespace graphcost::cli
