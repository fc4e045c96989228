// graphcost xgb train: a gradient-boosted-tree ranker (XGBoost, rank:pairwise) on one collection,
// written as a run folder that eval and predict load like a trained neural run.
#include <cstdio>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "data/collection.h"
#include "io/collection_readers.h"
#include "run/run_folder.h"
#include "xgb/ranker.h"
#include "xgb/run_writer.h"

namespace graphcost::cli {

namespace {

struct XgbTrainCommand {
  // no pruning here
  data::DataOptions source = data::command_data_options("train", "tile:xla");  // no pruning here
  std::string out;
  bool overwrite = false;
  xgb::XgbOptions options;
  const CLI::Option* collection_option = nullptr;
};

void run_xgb_train(const XgbTrainCommand& command) {
  // One writer per run folder, from the check of its files to the last write.
  const run::RunFolder folder(command.out);
  const auto folder_lock = folder.lock("graphcost xgb train");
  folder.check_new(command.overwrite, false);
  // Not named: a collection folder's own (npz/layout/xla/random), else the default.
  const auto named = data::collection_id_in_path(command.source.data);
  const data::CollectionId id = command.collection_option->count() == 0 && named
                                    ? *named
                                    : data::CollectionId::parse(command.source.collection);
  const data::LoadOptions load = command.source.unpruned_load_options();
  auto train_set = io::open_collection(command.source.data, id, command.source.split, load);
  std::fprintf(stderr, "xgb: %s: %lld training graphs, %lld rounds\n", id.str().c_str(),
               static_cast<long long>(train_set->size()),
               static_cast<long long>(command.options.rounds));
  const xgb::XgbRanker ranker = xgb::XgbRanker::train(*train_set, command.options);
  // The folder exists: the lock made it.
  if (command.overwrite) folder.remove_run_files();
  xgb::write_run(folder, ranker, command.source, id);
  std::fprintf(stderr, "xgb: model in %s\n", folder.xgboost_model_path().c_str());
}

}  // namespace

void add_xgb_command(CLI::App& app) {
  CLI::App* xgb = app.add_subcommand("xgb", "Gradient-boosted-tree ranker (XGBoost rank:pairwise)");
  xgb->require_subcommand(1);
  CLI::App* cmd = xgb->add_subcommand("train", "Train on one collection; writes a run folder "
                                               "(model.xgb, config.json) for eval and predict");
  auto c = std::make_shared<XgbTrainCommand>();
  const auto data = add_data_options(
      cmd, c->source,
      {"data", "collection", "split", "exclude", "skip_invalid", "devices", "device_name"},
      {{"collection", "collection id (default: the one a collection or split folder given as "
                      "--data is, else this)"},
       {"split", "split to train on"}});
  data.at("data")->required();
  c->collection_option = data.at("collection");
  cmd->add_option("--out", c->out, "run folder to write")->required();
  cmd->add_flag("--overwrite", c->overwrite, "replace a training run already in --out");
  // Every XGBoost option with a flag, by its config.json key (xgb/options.h); checked by the
  // table's checks before any data is read.
  auto flags = std::make_shared<OptionFlags<xgb::XgbOptions>>(cmd);
  const xgb::XgbOptions defaults;
  flags->add<xgb::XgbOptions>(
      xgb::xgb_option_fields(), [](xgb::XgbOptions& o) -> xgb::XgbOptions& { return o; }, defaults);
  flags->add<xgb::FeatureOptions>(
      xgb::feature_option_fields(),
      [](xgb::XgbOptions& o) -> xgb::FeatureOptions& { return o.features; }, defaults.features);
  cmd->callback([c, flags] {
    flags->apply(c->options);
    xgb::check_xgb_options(c->options);
    run_xgb_train(*c);
  });
}

}  // namespace graphcost::cli
