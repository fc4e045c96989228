// Opening trained run folders: config.json through run/run_config.h, then the model file its
// model type names.
#include <filesystem>

#include "core/error.h"
#include "data/device_table.h"
#include "data/prune.h"
#include "infer/scoring.h"
#include "infer/stack.h"
#include "model/io/model_file.h"
#include "run/run_folder.h"

namespace graphcost::infer {

namespace fs = std::filesystem;

TrainedModel load_run(const std::string& run_dir) {
  const run::RunFolder folder(run_dir);
  const run::RunConfig config = folder.read_config();
  TrainedModel run;
  run.dir = run_dir;
  run.collection = config.data.collection;
  run.prune_hops = config.data.prune_hops;
  run.prune_seeds = config.data.prune_seeds;
  run.slate_size = config.slate_size;
  if (config.model_type == run::ModelType::Stack) {
    load_stack(run, config, run_dir);
    return run;
  }
  if (config.model_type == run::ModelType::XGBoost) {
    const std::string config_path = folder.config_path();
    xgb::XgbOptions options;
    check_data(config.options.contains("xgboost"), config_path, "xgboost", "missing");
    try {
      xgb::from_json(config.options["xgboost"], options);
      xgb::check_xgb_options(options);
    } catch (const Error& e) {
      throw Error(config_path, "", e.what());
    }
    run.xgb = std::make_shared<const xgb::XgbRanker>(
        xgb::XgbRanker::load(folder.xgboost_model_path(), options));
    return run;
  }
  const std::string model_path = folder.model_path();
  if (!fs::exists(model_path)) throw Error(model_path, "", "no trained model (run `graphcost train` first)");
  run.ranker = model::load_model(model_path);
  return run;
}

const char* run_kind(const TrainedModel& run) {
  return run.stack ? "stack" : run.xgb ? "xgboost" : "neural";
}

model::Ranker load_neural_model(const std::string& path) {
  if (!fs::is_directory(path)) return model::load_model(path);
  const run::RunFolder folder(path);
  const run::ModelType type = folder.read_config().model_type;
  check_data(type == run::ModelType::Gnn, path, "model_type",
             std::string("an ") + (type == run::ModelType::Stack ? "stacked" : "XGBoost") +
                 " run; a neural run (model.pt) is needed here");
  return model::load_model(folder.model_path());
}

std::vector<TrainedModel> load_runs(const std::vector<std::string>& run_dirs, std::string& collection) {
  std::vector<TrainedModel> runs;
  std::string first_dir;
  collection.clear();
  for (const std::string& dir : run_dirs) {
    runs.push_back(load_run(dir));
    const std::string& c = runs.back().collection;
    if (c.empty()) continue;
    if (collection.empty()) {
      collection = c;
      first_dir = dir;
    } else if (c != collection) {
      throw Error(dir, "collection", "trained on " + c + " but " + first_dir + " on " + collection +
                                         " (an ensemble needs one collection)");
    }
  }
  return runs;
}

void check_runs_kind(const std::vector<TrainedModel>& runs, const std::vector<std::string>& run_dirs,
                     const data::CollectionId& id) {
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].collection.empty()) continue;
    const data::CollectionId trained = data::CollectionId::parse(runs[r].collection);
    check_data(trained.kind == id.kind, run_dirs[r], "",
               "trained on " + trained.str() + ", but collection " + id.str() +
                   " was asked: its configurations are of another kind");
  }
}

void check_run_fits(const TrainedModel& run, const data::Graph& graph, const data::ConfigView& configs,
                    const std::string& where) {
  if (run.stack) {
    for (const TrainedModel& member : run.stack->members) check_run_fits(member, graph, configs, where);
    return;
  }
  data::ConfigKind kind;
  int64_t node_width = 0, config_width = 0, opcodes = 0;
  if (run.xgb) {
    const xgb::FeatureOptions& f = run.xgb->options().features;
    kind = f.kind;
    node_width = f.node_feature_width;
    config_width = f.config_width;
  } else {
    const model::ModelOptions& m = run.ranker->options();
    kind = m.kind;
    node_width = m.node_feature_width;
    config_width = m.config_width;
    opcodes = m.num_opcodes;
  }
  const std::string trained = " (" + run.dir + " was trained on ";
  check_data(configs.kind == kind, where, "configs",
             data::config_kind_name(configs.kind) + " configurations" + trained +
                 data::config_kind_name(kind) + " configurations)");
  // A Kernel Tuner graph (one node, tile configurations) has 7 device columns from the device
  // table; runs trained before that had one column per device of their folder.
  const bool kernel_tuner_shape = graph.num_nodes == 1 && kind == data::ConfigKind::Tile;
  check_data(graph.feature_width == node_width, where, "node_feat",
             std::to_string(graph.feature_width) + " columns" + trained +
                 std::to_string(node_width) + ")" +
                 (kernel_tuner_shape
                      ? "; a Kernel Tuner graph has " + std::to_string(data::kDeviceColumnCount) +
                            " device columns (its device's properties) and one per problem_size "
                            "value; a run trained before graphcost described devices by their "
                            "properties (one column per device of its folder) cannot score it: "
                            "retrain it with graphcost train on the same caches"
                      : std::string()));
  check_data(configs.width == config_width, where,
             configs.kind == data::ConfigKind::Tile ? "config_feat" : "node_config_feat",
             std::to_string(configs.width) + " columns per configuration" + trained +
                 std::to_string(config_width) + ")");
  for (int64_t v = 0; v < graph.num_nodes && opcodes > 0; ++v)
    check_data(graph.opcodes[v] < opcodes, where, "node_opcode",
               "node " + std::to_string(v) + " has opcode " + std::to_string(graph.opcodes[v]) +
                   trained + "opcodes below " + std::to_string(opcodes) + ")");
}

void apply_run_pruning(const std::vector<TrainedModel>& runs, const std::vector<std::string>& run_dirs,
                       int prune_hops, data::LoadOptions& load) {
  if (runs.empty()) {  // a baseline: only an explicit --prune applies
    if (prune_hops != kRunPruning) load.prune_hops = prune_hops;
    return;
  }
  for (size_t r = 1; r < runs.size(); ++r) {
    check_data(runs[r].prune_hops == runs[0].prune_hops &&
                   runs[r].prune_seeds == runs[0].prune_seeds,
               run_dirs[r], "prune_hops",
               "pruned differently from " + run_dirs[0] + " (an ensemble scores one pruned copy)");
  }
  load.prune_hops = prune_hops == kRunPruning ? runs[0].prune_hops : prune_hops;
  load.prune_seed_opcodes = data::parse_prune_seeds(runs[0].prune_seeds);
}

}  // namespace graphcost::infer
