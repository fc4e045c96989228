// A trained run's config.json: the one writer and the one loader of it. Every run folder
// (`train`, `xgb train`, and the runs of a sweep, which train through `train`) records:
//   "format_version": kRunFormatVersion      (absent in runs written before versioning: 0)
//   "model_type":     "gnn", "xgboost" or "stack" (absent before versioning: "gnn")
//   the options that shaped the data: data, collection, split, exclude, skip_invalid,
//   prune_hops, prune_seeds, and the model's own options (a GNN's TrainOptions with its "model"
//   object; an XGBoost run's "xgboost" object; a stack's "stack" object: members, meta-learner).
// A run written by a newer graphcost (a higher format version) or of an unknown model type is
// refused with a message saying how to retrain it. Plain C++: no LibTorch.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/data_options.h"

namespace graphcost::run {

// The config.json format this build writes, and the newest it reads. Version 1 added
// format_version, model_type, exclude and skip_invalid; version 0 (no format_version key) is read
// with model_type "gnn" unless the file says "xgboost".
constexpr int kRunFormatVersion = 1;

enum class ModelType { Gnn, XGBoost, Stack };
// "gnn", "xgboost" or "stack" (a meta-learner over member runs: infer/stack.h).
const char* model_type_name(ModelType type);

// What a run's config.json says, as read by load_run_config.
struct RunConfig {
  int format_version = kRunFormatVersion;
  ModelType model_type = ModelType::Gnn;
  // The data options the run was trained with, read through their field table
  // (data/data_options.h); a key the file lacks keeps its default, except the collection, which
  // stays "" when the file does not name one (runs written before config.json recorded it).
  data::DataOptions data = data::command_data_options("train");
  int64_t slate_size = 0;  // the training slate size (0 when unknown, and for XGBoost runs)
  nlohmann::json options;  // the whole object, for the model's own options
};

// The file access behind RunFolder::write_config and RunFolder::read_config (run_folder.h), which
// every other reader and writer goes through.
// Writes RUN_DIR/config.json atomically: `options` (a JSON object of the run's options) with
// format_version and model_type added in front of its keys.
void write_run_config(const std::string& run_dir, ModelType type, const nlohmann::json& options);

// The data keys a trained model's config.json records besides its own options: data,
// collection (`id`), split, exclude and skip_invalid of `source`; writers add their own.
nlohmann::json trained_data_keys(const data::DataOptions& source, const data::CollectionId& id);

// Reads RUN_DIR/config.json. A missing file gives a default RunConfig with format_version 0
// (runs written before config.json existed); a damaged file, a wrong type under a key the
// loader reads, a newer format or an unknown model type is an Error naming the file.
RunConfig load_run_config(const std::string& run_dir);

// Checks format_version and model_type in an options object (a config.json given to
// `train --config`, or a sweep's base) and removes them, so that the rest reads as options.
// `expected` is the model type the reader trains. An Error names `where`.
nlohmann::json strip_run_header(const nlohmann::json& options, ModelType expected,
                                const std::string& where);

}  // namespace graphcost::run
