// graphcost synth: writes a synthetic dataset root in the TpuGraphs npz layout.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "synth/dataset.h"
#include "synth/plan_file.h"

namespace graphcost::cli {

namespace {

struct SynthCommandOptions {
  std::string out;
  uint64_t seed = 0;
  std::string scale = "small";
  std::string plan;
  double noise = 0.01;
  int threads = 0;
  bool stored = false;
  bool overwrite = false;
  bool terms = false;
};

void run_synth(const SynthCommandOptions& cli) {
  synth::SynthOptions options;
  options.out = cli.out;
  options.seed = cli.seed;
  options.scale = synth::parse_scale(cli.scale);
  options.noise = cli.noise;
  options.threads = cli.threads;
  options.compress = !cli.stored;
  options.overwrite = cli.overwrite;
  options.terms = cli.terms;
  if (!cli.plan.empty()) options.plan = synth::read_collection_plans(cli.plan);
  const auto files = synth::write_synthetic_dataset(options);
  int64_t configs = 0;
  for (const auto& f : files) configs += f.configs;
  std::printf("wrote %zu files (%lld configurations) under %s; report: %s/synth_report.json\n",
              files.size(), static_cast<long long>(configs), cli.out.c_str(), cli.out.c_str());
}

}  // namespace

void add_synth_command(CLI::App& app) {
  auto options = std::make_shared<SynthCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "synth",
      "Write a synthetic dataset (all five TpuGraphs collections, npz layout) whose "
      "runtimes come from a documented analytical cost model (docs/synthetic.md)");
  cmd->add_option("--out", options->out,
                  "Dataset root to write (npz/, answers/, synth_report.json)")
      ->required();
  cmd->add_option("--seed", options->seed, "Random seed; the same seed gives the same files")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_option("--scale", options->scale,
                  "small (seconds: tests, demo), medium (a minute or so), large (40k-node graphs, "
                  "100k configurations; hours and many GB)")
      ->capture_default_str();
  cmd->add_option("--plan", options->plan,
                  "JSON file listing the collections to write and their sizes, instead of "
                  "--scale (format: src/data/synth/plan_file.h)");
  cmd->add_option("--noise", options->noise,
                  "Sigma of the multiplicative log-normal runtime noise (0.01 = about 1%)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.99));
  add_threads_option(cmd, options->threads, "Files generated in parallel")->check(at_least(0));
  cmd->add_flag("--stored", options->stored, "Write uncompressed (stored) npz entries");
  cmd->add_flag("--overwrite", options->overwrite,
                "Replace an existing dataset under --out (its npz/, answers/ and terms/ folders)");
  cmd->add_flag("--terms", options->terms,
                "Also write terms/<path below npz/>: each layout file's noiseless runtime per "
                "configuration split by the cost model's terms (docs/synthetic.md)");
  cmd->callback([options]() { run_synth(*options); });
}

}  // namespace graphcost::cli
