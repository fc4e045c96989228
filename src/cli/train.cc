// graphcost train: trains a ranker on one collection and writes a run directory.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <type_traits>

#include "cli/commands.h"
#include "cli/distributed.h"
#include "cli/run_folder.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "data/collection.h"
#include "data/prune.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace graphcost::cli {

namespace {

// Flags override the --config file, which overrides the defaults: each flag writes its field
// only when it was given on the command line.
class OptionBinder {
 public:
  explicit OptionBinder(CLI::App* command) : command_(command) {}

  template <typename T>
  void bind(const std::string& flag, T train::TrainOptions::*field, const std::string& help) {
    auto value = std::make_shared<T>(train::TrainOptions{}.*field);
    CLI::Option* option = command_->add_option(flag, *value, help)->capture_default_str();
    if constexpr (std::is_same_v<T, int64_t>) option->check(signed_64());
    appliers_.push_back([option, value, field](train::TrainOptions& o) {
      if (option->count() > 0) o.*field = *value;
    });
  }

  // A bool flag of TrainOptions: `--skip-invalid` turns it on.
  void bind_flag(const std::string& flag, bool train::TrainOptions::*field, const std::string& help) {
    auto value = std::make_shared<bool>(train::TrainOptions{}.*field);
    CLI::Option* option = command_->add_flag(flag, *value, help);
    appliers_.push_back([option, value, field](train::TrainOptions& o) {
      if (option->count() > 0) o.*field = *value;
    });
  }

  template <typename T>
  void bind_model(const std::string& flag, T model::ModelOptions::*field, const std::string& help) {
    auto value = std::make_shared<T>(model::ModelOptions{}.*field);
    // A bool is a flag: `--attention` turns it on, `--attention=false` off.
    CLI::Option* option = nullptr;
    if constexpr (std::is_same_v<T, bool>) {
      option = command_->add_flag(flag, *value, help);
    } else {
      option = command_->add_option(flag, *value, help)->capture_default_str();
    }
    appliers_.push_back([option, value, field](train::TrainOptions& o) {
      if (option->count() > 0) o.model.*field = *value;
    });
  }

  void apply(train::TrainOptions& options) const {
    for (const auto& apply_one : appliers_) apply_one(options);
  }

 private:
  CLI::App* command_;
  std::vector<std::function<void(train::TrainOptions&)>> appliers_;
};

// The dotted keys (model.hidden) whose values differ between two option objects.
std::vector<std::string> differing_keys(const nlohmann::json& a, const nlohmann::json& b,
                                        const std::string& prefix) {
  if (!a.is_object() || !b.is_object()) {
    if (a == b) return {};
    return {prefix};
  }
  std::vector<std::string> out;
  nlohmann::json keys = a;
  keys.update(b);  // the union of both objects' keys
  for (const auto& [key, _] : keys.items()) {
    const nlohmann::json none;
    const nlohmann::json& x = a.contains(key) ? a[key] : none;
    const nlohmann::json& y = b.contains(key) ? b[key] : none;
    for (std::string& k : differing_keys(x, y, prefix.empty() ? key : prefix + "." + key))
      out.push_back(std::move(k));
  }
  return out;
}

struct TrainCommand {
  std::string out;
  std::string config;
  bool resume = false;
  bool overwrite = false;
  std::unique_ptr<OptionBinder> binder;
  const CLI::Option* collection_option = nullptr;
  dist::LaunchOptions launch;
};

void run(const TrainCommand& command) {
  // Joined first, so that a bad launch fails before any data is read.
  const std::unique_ptr<dist::Group> group = dist::join(command.launch);
  const bool leader = group == nullptr || group->leader();
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
    command.binder->apply(given);
    nlohmann::json stored_json = options, given_json = given;
    std::string changed;
    for (const char* free : {"iterations", "threads", "share_rows", "data", "valid_data"}) {
      stored_json.erase(free);
      given_json.erase(free);
    }
    for (const std::string& key : differing_keys(stored_json, given_json, ""))
      changed += (changed.empty() ? "" : ", ") + key;
    check_data(changed.empty(), command.out, "--resume",
               "the run keeps its stored options, but these were given otherwise: " + changed +
                   " (only --iterations, --threads, --share-rows, --data and --valid-data may change)");
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
  command.binder->apply(options);
  check_data(!options.data.empty(), "train", "--data",
             "no dataset path given (--data or \"data\" in --config)");
  // Rank 0 alone owns the run folder (the others may share its storage).
  if (!resume && leader) check_new_run_folder(command.out, command.overwrite, true);
  try {
    train::check_train_options(options);
  } catch (const Error& e) {
    if (command.config.empty()) throw;
    throw Error(command.config, "", e.what());  // "<file>: train options: <key>: <problem>"
  }
  // Not named anywhere: a collection folder's own (npz/layout/xla/default), not the default id.
  if (!resume && !collection_in_config && command.collection_option->count() == 0) {
    if (const auto named = data::collection_id_in_path(options.data)) options.collection = named->str();
  }
  const data::CollectionId id = data::CollectionId::parse(options.collection);
  data::LoadOptions load;
  load.skip_invalid = options.skip_invalid;
  load.exclude = options.exclude;
  load.prune_hops = options.prune_hops;
  load.prune_seed_opcodes = data::parse_prune_seeds(options.prune_seeds);
  std::unique_ptr<data::Collection> train_set =
      data::open_collection(options.data, id, options.split, load);
  std::unique_ptr<data::Collection> valid_set;
  if (!options.valid_split.empty())
    valid_set = data::open_collection(options.valid_data.empty() ? options.data : options.valid_data,
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
  command->binder = std::make_unique<OptionBinder>(sub);
  OptionBinder& b = *command->binder;
  using O = train::TrainOptions;
  using M = model::ModelOptions;
  sub->add_option("--out", command->out,
                  "Run directory (config.json, metrics.jsonl, checkpoint.pt, model.pt)")
      ->required();
  sub->add_option("--config", command->config,
                  "JSON file of training options; flags given here override it");
  sub->add_flag(
      "--resume", command->resume,
      "Continue from RUN_DIR/checkpoint.pt with its stored options (only --iterations, "
      "--threads, --share-rows, --data and --valid-data may be given otherwise)");
  sub->add_flag("--overwrite", command->overwrite,
                "Replace a run already in RUN_DIR (without it, train refuses to write over one)");
  b.bind_flag("--skip-invalid", &O::skip_invalid, "Warn and skip files that fail validation");
  b.bind("--exclude", &O::exclude, "Graph names (file stems) to leave out");
  b.bind("--data", &O::data, "Dataset root, collection folder, .npz file or pack");
  b.bind("--collection", &O::collection,
         "Collection id: tile:xla or layout:{xla,nlp}:{default,random} (default: the one a "
         "collection or split folder given as --data is, e.g. npz/tile/xla, else this)");
  command->collection_option = sub->get_option("--collection");
  b.bind("--split", &O::split, "Split to train on");
  b.bind("--valid-split", &O::valid_split, "Split to validate on (empty: none)");
  b.bind("--valid-data", &O::valid_data,
         "Where the validation split lives, e.g. its own pack (empty: the same as --data)");
  b.bind("--iterations", &O::iterations, "Training iterations (batches)");
  b.bind("--graphs-per-batch", &O::graphs_per_batch, "Graphs per batch (G)");
  b.bind("--slate-size", &O::slate_size, "Configurations per graph in a batch (S)");
  b.bind("--loss", &O::loss,
         "Loss spec: listmle, hinge, diffmat, mape, or weighted e.g. diffmat:1,mape:0.1");
  b.bind("--optimizer", &O::optimizer, "adam or adamw");
  b.bind("--lr", &O::lr, "Learning rate");
  b.bind("--weight-decay", &O::weight_decay, "Weight decay");
  b.bind("--decay-at", &O::decay_at, "Iterations where the learning rate is divided by sqrt(10)");
  b.bind("--grad-clip", &O::grad_clip, "Largest global gradient norm (<= 0: no clipping)");
  b.bind("--log-every", &O::log_every, "Iterations per metrics.jsonl line");
  b.bind("--validate-every", &O::validate_every,
         "Iterations between validations (0: only at the end)");
  b.bind("--valid-configs-per-graph", &O::valid_configs_per_graph,
         "Configurations sampled per validation graph (<= 0: all)");
  b.bind("--valid-batch", &O::valid_batch, "Configurations scored per forward pass in validation");
  b.bind("--valid-predictions-graphs", &O::valid_predictions_graphs,
         "Graphs written to valid_predictions.jsonl");
  b.bind("--checkpoint-every", &O::checkpoint_every,
         "Iterations between checkpoints (0: only at the end)");
  b.bind("--seed", &O::seed, "Random seed (model init, batches, validation sample)");
  sub->get_option("--seed")->check(unsigned_64());
  b.bind("--threads", &O::threads, "Threads for LibTorch and our kernels (<= 0: all cores)");
  b.bind("--share-rows", &O::share_rows,
         "Layout: compute one row per class of configurations that agree on a node's "
         "neighbourhood (exact; false: every configuration's row)");
  b.bind("--prune", &O::prune_hops,
         "Keep only nodes within K hops of a configurable node (layout; -1: no pruning); eval "
         "and predict apply it to the run's data");
  b.bind("--prune-seeds", &O::prune_seeds,
         "Configurable nodes that seed --prune: all, conv-dot-reshape, or opcode names a,b "
         "(every configurable node is kept)");
  b.bind("--gst-segment-nodes", &O::gst_segment_nodes,
         "Graph Segment Training: nodes per segment (0: off; docs/gst.md)");
  b.bind("--gst-segments-per-step", &O::gst_segments_per_step,
         "GST: segments per graph computed with gradients each step");
  b.bind("--gst-stale-dropout", &O::gst_stale_dropout,
         "GST: probability of dropping each stale (historical) segment score");
  b.bind("--gst-partition", &O::gst_partition, "GST: contiguous (node_splits first) or metis");
  b.bind("--swa-start", &O::swa_start,
         "Average the weights from this iteration on into model.pt (0: off)");
  b.bind("--swa-every", &O::swa_every, "Iterations between weight-average snapshots");
  b.bind_model("--hidden", &M::hidden, "GraphSAGE layer widths");
  b.bind_model("--num-opcodes", &M::num_opcodes, "Opcode ids are below this");
  b.bind_model("--opcode-embedding", &M::opcode_embedding, "Opcode embedding width");
  b.bind_model("--node-feature-dim", &M::node_feature_dim, "Width of the compressed node features");
  b.bind_model("--config-embedding", &M::config_embedding,
               "Configuration embedding width (0: raw features)");
  b.bind_model("--dropout", &M::dropout, "Dropout probability");
  b.bind_model("--activation", &M::activation, "Activation function");
  b.bind_model("--minus-one-padding", &M::minus_one_padding,
               "Node layout columns 134-139 -1-padded and one-hot like the configurations");
  b.bind_model("--shape-mod128", &M::shape_mod128,
               "Add x % 128 and x / 128 of the shape dims as node features");
  b.bind_model("--rw-steps", &M::random_walk_steps,
               "Random-walk positional encodings of 1..K steps (0: off)");
  b.bind_model("--virtual-node", &M::virtual_node,
               "Add a virtual output node fed by every sink");
  b.bind_model("--arch", &M::architecture, "Architecture: sage, or mlp (graph-level tile configurations)");
  b.bind_model("--head", &M::head, "Head: score, or pairwise (P(a faster than b), ranked by wins)");
  b.bind_model("--pairwise-references", &M::pairwise_references,
               "Pairwise head: configurations each one is compared with at inference");
  b.bind_model("--attention", &M::attention, "Cross-configuration attention over the slate");
  b.bind_model("--attention-temperature", &M::attention_temperature,
               "Initial temperature of the attention");
  b.bind_model("--graph-norm", &M::graph_norm, "GraphNorm after every SAGE layer (dense forward)");
  add_distributed_options(sub, command->launch);
  sub->callback([command] { run(*command); });
}

}  // namespace graphcost::cli
