// graphcost xgb train: a gradient-boosted-tree ranker (XGBoost, rank:pairwise) on one collection,
// written as a run folder that eval and predict load like a trained neural run.
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/run_folder.h"
#include "core/error.h"
#include "data/collection.h"
#include "run/run_config.h"
#include "xgb/ranker.h"

namespace graphcost::cli {

namespace {

struct XgbTrainCommand {
  std::string data;
  std::string collection = "tile:xla";
  std::string split = "train";
  std::string out;
  std::vector<std::string> exclude;
  bool skip_invalid = false;
  bool overwrite = false;
  xgb::XgbOptions options;
  const CLI::Option* collection_option = nullptr;
};

void run_xgb_train(const XgbTrainCommand& command) {
  namespace fs = std::filesystem;
  check_new_run_folder(command.out, command.overwrite, false);
  // Not named: a collection folder's own (npz/layout/xla/random), else the default.
  const auto named = data::collection_id_in_path(command.data);
  const data::CollectionId id = command.collection_option->count() == 0 && named
                                    ? *named
                                    : data::CollectionId::parse(command.collection);
  data::LoadOptions load;
  load.skip_invalid = command.skip_invalid;
  load.exclude = command.exclude;
  auto train_set = data::open_collection(command.data, id, command.split, load);
  std::fprintf(stderr, "xgb: %s: %lld training graphs, %lld rounds\n", id.str().c_str(),
               static_cast<long long>(train_set->size()),
               static_cast<long long>(command.options.rounds));
  const xgb::XgbRanker ranker = xgb::XgbRanker::train(*train_set, command.options);
  std::error_code ignored;
  fs::create_directories(command.out, ignored);
  check_data(fs::is_directory(command.out), command.out, "", "cannot create the run directory");
  if (command.overwrite) remove_run_files(command.out);
  ranker.save((fs::path(command.out) / "model.xgb").string());
  nlohmann::json options;
  xgb::to_json(options, ranker.options());
  run::write_run_config(command.out, run::ModelType::XGBoost,
                        {{"data", command.data},
                         {"collection", id.str()},
                         {"split", command.split},
                         {"exclude", command.exclude},
                         {"skip_invalid", command.skip_invalid},
                         {"xgboost", options}});
  std::fprintf(stderr, "xgb: model in %s/model.xgb\n", command.out.c_str());
}

}  // namespace

void add_xgb_command(CLI::App& app) {
  CLI::App* xgb = app.add_subcommand("xgb", "Gradient-boosted-tree ranker (XGBoost rank:pairwise)");
  xgb->require_subcommand(1);
  CLI::App* cmd = xgb->add_subcommand("train", "Train on one collection; writes a run folder "
                                               "(model.xgb, config.json) for eval and predict");
  auto c = std::make_shared<XgbTrainCommand>();
  xgb::XgbOptions& o = c->options;
  cmd->add_option("--data", c->data, "dataset root, collection folder, file or pack")->required();
  c->collection_option =
      cmd->add_option("--collection", c->collection,
                      "collection id (default: the one a collection or split folder given as "
                      "--data is, else this)")
          ->capture_default_str();
  cmd->add_option("--split", c->split, "split to train on")->capture_default_str();
  cmd->add_option("--out", c->out, "run folder to write")->required();
  cmd->add_option("--exclude", c->exclude, "graph names (file stems) to leave out");
  cmd->add_flag("--overwrite", c->overwrite, "replace a training run already in --out");
  cmd->add_flag("--skip-invalid", c->skip_invalid, "warn and skip files that fail validation");
  cmd->add_option("--rounds", o.rounds, "boosting rounds")->check(at_least(1))->capture_default_str();
  cmd->add_option("--max-depth", o.max_depth, "tree depth")->check(at_least(1))->capture_default_str();
  cmd->add_option("--eta", o.eta, "learning rate")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--subsample", o.subsample, "row subsample per tree")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--colsample", o.colsample, "column subsample per tree")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--max-configs", o.max_configs_per_graph,
                  "seeded sample of configurations per graph (0 = all)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--num-opcodes", o.features.num_opcodes, "opcode histogram bins")
      ->check(at_least(1))
      ->capture_default_str();
  cmd->add_option("--layout-nodes", o.features.layout_nodes,
                  "configurable nodes whose values are features of their own (layout)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "random seed")->capture_default_str();
  cmd->add_option("--threads", o.threads, "threads (0 = all cores)")->capture_default_str();
  cmd->callback([c] { run_xgb_train(*c); });
}

}  // namespace graphcost::cli
