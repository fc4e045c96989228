// graphcost train: trains a ranker on one collection and writes a run directory.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/commands.h"
#include "cli/distributed.h"
#include "cli/option_flags.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "dist/launch.h"
#include "model/kernels/gemm_ledger.h"
#include "run/run_folder.h"
#include "train/interrupt.h"
#include "train/session.h"
#include "train/xgboost_run.h"

namespace graphcost::cli {

namespace {

struct TrainCommand {
  std::string model = "auto";
  std::string out;
  std::string config;
  bool resume = false;
  bool overwrite = false;
  std::unique_ptr<OptionFlags<train::TrainOptions>> flags;
  const CLI::Option* collection_option = nullptr;
  dist::LaunchOptions launch;
};

void run(const TrainCommand& command) {
  {
    // The model to fit: the data the options name decides `auto` (train::choose_model).
    train::TrainOptions options;
    command.flags->apply(options);
    if (options.data.empty() && !command.config.empty()) {
      train::TrainOptions in_config;
      try {
        train::from_json(nlohmann::json::parse(read_file(command.config)), in_config);
      } catch (const std::exception&) {
        // The session reports a bad --config file with its name.
      }
      options.data = in_config.data;
      options.split = in_config.split;
    }
    check_data(!command.resume || command.model != "xgboost", "train", "--resume",
               "an XGBoost run has no checkpoint to resume from (it trains in one go)");
    const std::string model =
        command.resume ? "gnn"
                       : train::choose_model(command.model, options.data, options.split, "--model");
    if (model == "xgboost") {
      check_data(command.config.empty(), "train", "--config",
                 "a neural model's options; XGBoost (--model " + command.model +
                     ") takes the data options, --seed and --threads");
      // XGBoost trains in one process: under a launcher every rank would write the same run.
      const dist::Launch launch =
          dist::resolve_launch(command.launch, dist::launcher_environment());
      check_data(launch.world_size == 1, "train", "--model",
                 "XGBoost (--model " + command.model + ") trains in one process, not across " +
                     std::to_string(launch.world_size) +
                     " (the launch's world size): start it without a launcher, or --model gnn "
                     "for the neural model across processes");
      train::XgboostRunRequest request;
      request.options = options;
      request.given = command.flags->given_keys();
      request.collection_given = command.collection_option->count() > 0;
      request.requested = command.model;
      request.out = command.out;
      request.overwrite = command.overwrite;
      request.writer = "graphcost train";
      train::run_xgboost(request);
      return;
    }
  }
  // Joined first, so that a bad launch fails before any data is read.
  const std::unique_ptr<dist::Group> group = dist::join(command.launch);
  const bool leader = group == nullptr || group->leader();
  train::SessionRequest request;
  request.run_dir = command.out;
  request.overwrite = command.overwrite;
  request.config_file = command.config;
  request.apply_given = [&](train::TrainOptions& options) { command.flags->apply(options); };
  request.collection_given = command.collection_option->count() > 0;
  // torchrun --max_restarts starts the same command again after a rank failed
  // (TORCHELASTIC_RESTART_COUNT > 0): it resumes from the last checkpoint.
  const char* restarts = std::getenv("TORCHELASTIC_RESTART_COUNT");
  request.restarted = restarts != nullptr && std::atoi(restarts) > 0 &&
                      run::RunFolder(command.out).has_checkpoint() && !command.overwrite;
  if (request.restarted && leader)
    std::fprintf(stderr, "train: restart %s by the launcher: resuming %s\n", restarts,
                 run::RunFolder(command.out).checkpoint_path().c_str());
  request.resume = command.resume || request.restarted;
  train::Session session(request, group.get());
  if (leader)
    std::fprintf(stderr, "train: %s: %lld training graphs, %lld validation graphs\n",
                 session.train_set().id().str().c_str(),
                 static_cast<long long>(session.train_set().size()),
                 static_cast<long long>(session.valid_set() ? session.valid_set()->size() : 0));
  train::clear_stop_request();
  train::install_interrupt_handler();
  const train::TrainResult result = train::train(session);
  if (!leader) return;
  if (group)
    std::fprintf(stderr, "train: %d processes; allreduce %.3f ms and %lld bytes per step\n",
                 group->size(), 1e3 * result.allreduce_seconds_per_step,
                 static_cast<long long>(result.allreduce_bytes_per_step));
  if (result.interrupted) {
    std::fprintf(stderr,
                 "train: stopped at iteration %lld; checkpoint in %s (continue with --resume)\n",
                 static_cast<long long>(result.iterations),
                 session.folder().checkpoint_path().c_str());
  } else {
    std::fprintf(stderr, "train: %lld iterations; model in %s\n",
                 static_cast<long long>(result.iterations), session.folder().model_path().c_str());
    std::fprintf(stderr, "train: %.1f%% of the time waiting for data\n",
                 100 * result.data_wait_fraction);
    std::fprintf(stderr, "train: %s\n", model::gemm_summary(result.seconds).c_str());
    std::fprintf(stderr,
                 "train: phases: forward and loss %.2f thread-s, backward %.2f thread-s, gradient "
                 "sums %.2f thread-s, optimiser %.2f s, validation %.2f s, waiting for data %.2f "
                 "s, of %.2f s\n",
                 result.forward_seconds, result.backward_seconds, result.summing_seconds,
                 result.optimizer_seconds, result.validation_seconds,
                 result.data_wait_fraction * result.seconds, result.seconds);
  }
}

}  // namespace

void add_train_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("train", "Train a ranker on one collection; writes a run directory");
  auto command = std::make_shared<TrainCommand>();
  sub->add_option("--model", command->model,
                  "Model to fit: auto (XGBoost on Kernel Tuner records, the neural model "
                  "otherwise; docs/kernel-tuner.md), gnn (the neural model) or xgboost (XGBoost "
                  "with the data options, --seed and --threads; `graphcost xgb train` takes its "
                  "own options)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "gnn", "xgboost"}));
  command->flags = std::make_unique<OptionFlags<train::TrainOptions>>(sub);
  OptionFlags<train::TrainOptions>& flags = *command->flags;
  sub->add_option("--out", command->out,
                  "Run directory (config.json, metrics.jsonl, checkpoint.pt, model.pt)")
      ->required();
  sub->add_option("--config", command->config,
                  "JSON file of training options (config.json keys); flags given here override it");
  std::string free;
  for (const std::string& flag : train::resume_free_flags()) free += (free.empty() ? "" : ", ") + flag;
  sub->add_flag("--resume", command->resume,
                "Continue from RUN_DIR/checkpoint.pt with its stored options (only " + free +
                    " may be given otherwise)");
  sub->add_flag("--overwrite", command->overwrite,
                "Replace a run already in RUN_DIR (without it, train refuses to write over one)");
  // Every option of the three groups, by its config.json key (train/options.h).
  add_train_option_flags(flags);
  command->collection_option = flags.option("collection");
  flags.option("collection")
      ->description("Collection id: tile:xla or layout:{xla,nlp}:{default,random} (default: the "
                    "one a collection or split folder given as --data is, e.g. npz/tile/xla, else "
                    "this)");
  flags.option("split")->description("Split to train on");
  flags.option("prune_hops")
      ->description("Keep only nodes within K hops of a configurable node (layout; -1: no "
                    "pruning); eval and predict apply it to the run's data");
  add_distributed_options(sub, command->launch);
  sub->callback([command] { run(*command); });
}

}  // namespace graphcost::cli
