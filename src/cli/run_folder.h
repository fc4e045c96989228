// A training run's folder: train and xgb train refuse to write over an earlier run unless told.
#pragma once

#include <string>

#include "data/collection.h"
#include "data/data_options.h"
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

}  // namespace graphcost::cli
