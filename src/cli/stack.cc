// graphcost stack: a meta-learner over member runs' scores (docs/stack.md), fitted on graphs no
// member trained on and written as a run folder that eval, predict, serve and Python load like
// any other run.
#include "infer/stack.h"

#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "infer/threads.h"
#include "run/run_folder.h"
#include "stack/run_writer.h"

namespace graphcost::cli {

namespace {

struct StackCommand {
  infer::StackOptions options;
  std::string out;
  bool overwrite = false;
  int threads = 0;
};

void run_stack(const StackCommand& command) {
  const infer::StackOptions& o = command.options;
  infer::set_threads(command.threads);
  // One writer per run folder, from the check of its files to the last write.
  const run::RunFolder folder(command.out);
  const auto folder_lock = folder.lock("graphcost stack");
  folder.check_new(command.overwrite, false);
  const infer::FittedStack fitted = infer::fit_stack(o);
  for (const stack::CandidateResult& c : fitted.meta.cross_fit())
    std::fprintf(stderr, "stack: cross-fitted %s: tau %.4f\n", c.setting.dump().c_str(), c.tau);
  std::fprintf(stderr, "stack: chose %s; fitted on %lld graphs\n",
               fitted.meta.setting().dump().c_str(), static_cast<long long>(fitted.graphs));
  if (command.overwrite) folder.remove_run_files();
  data::DataOptions source = o.source;
  source.prune_hops = fitted.prune_hops;
  source.prune_seeds = fitted.prune_seeds;
  nlohmann::json settings = {{"folds", o.meta.folds},
                             {"seed", o.meta.seed},
                             {"max_configs_per_graph", o.max_configs_per_graph}};
  if (!o.refit_members.empty()) {  // where the meta-learner's weights came from, for the record
    nlohmann::json fitted_on = nlohmann::json::array();
    for (const std::string& m : o.members)
      fitted_on.push_back(std::filesystem::absolute(m).lexically_normal().string());
    settings["fitted_on_members"] = fitted_on;
  }
  stack::write_run(folder, fitted.members, source, fitted.id, fitted.meta,
                   fitted.other_devices ? &*fitted.other_devices : nullptr, settings);
  std::fprintf(stderr, "stack: run in %s\n", command.out.c_str());
}

}  // namespace

void add_stack_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "stack", "Fit a meta-learner over member runs' scores on graphs no member trained on; "
               "writes a run folder for eval, predict, serve and Python");
  auto c = std::make_shared<StackCommand>();
  const auto data = add_data_options(
      cmd, c->options.source, {"data", "collection", "split", "exclude", "skip_invalid", "devices", "device_name"},
      {{"collection", "collection id (default: the members')"},
       {"split", "split to fit the meta-learner on: no member may have trained on its graphs"}});
  data.at("data")->required();
  cmd->add_option("--member", c->options.members,
                  "a member run folder (neural or XGBoost); repeat for each member")
      ->required();
  cmd->add_option("--refit-member", c->options.refit_members,
                  "blending: the run the stack scores with in place of the --member of the same "
                  "position (the same settings trained on more data, e.g. with the fitting "
                  "configurations); the meta-learner is fitted on the --member runs' scores");
  cmd->add_flag("--member-other-devices", c->options.other_devices,
                "add the ranking by other devices' measured times as a member (Kernel Tuner "
                "data: the first member's training graphs are the other devices)");
  cmd->add_option("--meta", c->options.meta.meta, "meta-learner: ridge or xgboost")
      ->check(CLI::IsMember(stack::meta_learner_names()))
      ->capture_default_str();
  cmd->add_option("--folds", c->options.meta.folds,
                  "folds of graphs for cross-fitting the meta-learner's setting (at most the "
                  "graph count; a single graph's configurations are dealt into this many parts)")
      ->check(at_least(2))
      ->capture_default_str();
  cmd->add_option("--seed", c->options.meta.seed, "seed of the folds and the configuration sample")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_option("--max-configs-per-graph", c->options.max_configs_per_graph,
                  "configurations per graph sampled for fitting (0: all)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--out", c->out, "run folder to write")->required();
  cmd->add_flag("--overwrite", c->overwrite, "replace a run already in --out");
  add_threads_option(cmd, c->threads, "scoring threads");
  cmd->callback([c] {
    c->options.meta.threads = c->threads;
    run_stack(*c);
  });
}

}  // namespace graphcost::cli
