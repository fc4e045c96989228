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
  // Not named: a collection folder's own (npz/layout/xla/random), else the default.
  const auto named = data::collection_id_in_path(command.source.data);
  const data::CollectionId id = command.collection_option->count() == 0 && named
                                    ? *named
                                    : data::CollectionId::parse(command.source.collection);
  xgb::train_run(command.source, id, command.options, command.out, command.overwrite,
                 "graphcost xgb train", "xgb");
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
