// A training run's folder: train and xgb train refuse to write over an earlier run unless told.
#pragma once

#include <string>

#include "data/collection.h"
#include "data/data_options.h"
#include "stack/meta_learner.h"
#include "stack/other_devices.h"
#include "xgb/ranker.h"

namespace graphcost::cli {

// An Error when `out` already holds a run's files and overwrite is false: "OUT: already holds a
// training run (model.pt); --overwrite replaces it" (train adds "--resume continues it").
void check_new_run_folder(const std::string& out, bool overwrite, bool resumable);

// Removes the run files of `out` (nothing else), so that a run started with --overwrite never
// shows a mix of the old run's files and the new one's.
void remove_run_files(const std::string& out);

// Writes an XGBoost run into `out` (which must exist): model.xgb and config.json with the data it
// was trained on (`source`, collection `id`) and its options; `xgb train` and a study's XGBoost
// trials write their runs through this.
void write_xgboost_run(const std::string& out, const xgb::XgbRanker& ranker,
                       const data::DataOptions& source, const data::CollectionId& id);

// Writes a stacked run into `out` (which must exist): meta.xgb (an XGBoost meta-learner) and
// other_devices.json where the stack has them, then config.json (model_type "stack") with the
// data it was fitted on (`source`, collection `id`, the members' pruning) and under "stack" the
// member folders (relative to `out` when inside it, else absolute: members are not copied, a
// neural member's files can be large), `settings` (how it was fitted) and the meta-learner.
void write_stack_run(const std::string& out, const std::vector<std::string>& members,
                     const data::DataOptions& source, const data::CollectionId& id,
                     const stack::MetaLearner& meta, const stack::OtherDevices* other_devices,
                     const nlohmann::json& settings);

}  // namespace graphcost::cli
