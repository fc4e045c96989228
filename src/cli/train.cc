// graphcost train: trains a ranker on one collection and writes a run directory.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>

#include "cli/commands.h"
#include "cli/distributed.h"
#include "cli/option_flags.h"
#include "cli/run_folder.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "data/collection.h"
#include "io/collection_readers.h"
#include "run/folder_lock.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace graphcost::cli {

namespace {

struct TrainCommand {
  std::string out;
  std::string config;
  bool resume = false;
  bool overwrite = false;
  std::unique_ptr<OptionFlags<train::TrainOptions>> flags;
  const CLI::Option* collection_option = nullptr;
  dist::LaunchOptions launch;
};

void run(const TrainCommand& command) {
  // Joined first, so that a bad launch fails before any data is read.
  const std::unique_ptr<dist::Group> group = dist::join(command.launch);
  const bool leader = group == nullptr || group->leader();
  // One writer per run folder, from the first look at it (its files, --overwrite's removal) to
  // the last write: rank 0 alone owns the folder (the others may share its storage).
  std::unique_ptr<run::FolderLock> folder_lock;
  if (leader) folder_lock = std::make_unique<run::FolderLock>(command.out, "graphcost train");
  train::TrainOptions options;
  bool collection_in_config = false;
  const std::string checkpoint = command.out + "/checkpoint.pt";
  // torchrun --max_restarts starts the same command again after a rank failed
  // (TORCHELASTIC_RESTART_COUNT > 0): it resumes from the last checkpoint.
  const char* restarts = std::getenv("TORCHELASTIC_RESTART_COUNT");
  const bool restarted = restarts != nullptr && std::atoi(restarts) > 0 &&
                         std::filesystem::exists(checkpoint) && !command.overwrite;
  if (restarted && leader)
    std::fprintf(stderr, "train: restart %s by the launcher: resuming %s\n", restarts,
                 checkpoint.c_str());
  const bool resume = command.resume || restarted;
  if (resume) {
    // A resumed run keeps its stored options; explicit --iterations and --threads still apply,
    // so a finished run can be extended, and --data/--valid-data may say where its data now is.
    check_data(command.config.empty() || restarted, "train", "--config",
               "not with --resume (the run keeps its stored options)");
    check_data(!command.overwrite, "train", "--overwrite", "not with --resume");
    check_data(std::filesystem::exists(checkpoint), checkpoint, "", "no checkpoint to resume from");
    options = train::read_checkpoint_options(checkpoint);
    train::TrainOptions given = options;
    command.flags->apply(given);
    std::string changed, free;
    for (const std::string& key : train::options_fixed_on_resume_that_differ(options, given))
      changed += (changed.empty() ? "" : ", ") + key;
    for (const std::string& flag : train::resume_free_flags())
      free += (free.empty() ? "" : ", ") + flag;
    check_data(changed.empty(), command.out, "--resume",
               "the run keeps its stored options, but these were given otherwise: " + changed +
                   " (only " + free + " may change)");
  } else if (!command.config.empty()) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_file(command.config));
    } catch (const nlohmann::json::exception& e) {
      throw Error(command.config, "", std::string("not valid JSON: ") + e.what());
    }
    collection_in_config = j.is_object() && j.contains("collection");
    try {
      train::from_json(j, options);
    } catch (const Error& e) {
      throw Error(command.config, "", e.what());  // "<file>: train options: <key>: <problem>"
    }
  }
  command.flags->apply(options);
  check_data(!options.data.empty(), "train", "--data",
             "no dataset path given (--data or \"data\" in --config)");
  // Rank 0 alone owns the run folder (the others may share its storage).
  if (!resume && leader) check_new_run_folder(command.out, command.overwrite, true);
  // Not named anywhere: a collection folder's own (npz/layout/xla/default), not the default id.
  if (!resume && !collection_in_config && command.collection_option->count() == 0) {
    if (const auto named = data::collection_id_in_path(options.data)) options.collection = named->str();
  }
  const data::CollectionId id = data::CollectionId::parse(options.collection);
  options.model.kind = id.kind;  // as training resolves it: the model checks depend on it
  try {
    train::check_train_options(options);
  } catch (const Error& e) {
    if (command.config.empty()) throw;
    throw Error(command.config, "", e.what());  // "<file>: train options: <key>: <problem>"
  }
  const data::LoadOptions load = options.load_options();
  std::unique_ptr<data::Collection> train_set =
      io::open_collection(options.data, id, options.split, load);
  std::unique_ptr<data::Collection> valid_set;
  if (!options.valid_split.empty())
    valid_set = io::open_collection(options.valid_data.empty() ? options.data : options.valid_data,
                                      id, options.valid_split, load);
  if (leader)
    std::fprintf(stderr, "train: %s: %lld training graphs, %lld validation graphs\n",
                 id.str().c_str(), static_cast<long long>(train_set->size()),
                 static_cast<long long>(valid_set ? valid_set->size() : 0));
  if (command.overwrite && leader) remove_run_files(command.out);
  train::clear_stop_request();
  train::install_interrupt_handler();
  const train::TrainResult result =
      train::train(options, *train_set, valid_set.get(), command.out, resume, group.get());
  if (!leader) return;
  if (group)
    std::fprintf(stderr, "train: %d processes; allreduce %.3f ms and %lld bytes per step\n",
                 group->size(), 1e3 * result.allreduce_seconds_per_step,
                 static_cast<long long>(result.allreduce_bytes_per_step));
  if (result.interrupted) {
    std::fprintf(stderr,
                 "train: stopped at iteration %lld; checkpoint in %s/checkpoint.pt (continue with "
                 "--resume)\n",
                 static_cast<long long>(result.iterations), command.out.c_str());
  } else {
    std::fprintf(stderr, "train: %lld iterations; model in %s/model.pt\n",
                 static_cast<long long>(result.iterations), command.out.c_str());
    std::fprintf(stderr, "train: %.1f%% of the time waiting for data\n",
                 100 * result.data_wait_fraction);
  }
}

}  // namespace

void add_train_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("train", "Train a ranker on one collection; writes a run directory");
  auto command = std::make_shared<TrainCommand>();
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
