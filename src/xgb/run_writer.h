// Writing a trained XGBoost ranker as a run folder (run/run_folder.h), which eval, predict, serve
// and Python then load as any run.
#pragma once

#include <string>

#include "data/collection.h"
#include "data/data_options.h"
#include "run/run_folder.h"
#include "xgb/ranker.h"

namespace graphcost::xgb {

// Writes model.xgb and config.json (the data it was trained on: `source`, collection `id`, and
// its options) into `folder`, which must exist; `xgb train` and a study's XGBoost trials write
// their runs through this.
void write_run(const run::RunFolder& folder, const XgbRanker& ranker,
               const data::DataOptions& source, const data::CollectionId& id);

// Trains a ranker on `source`'s split of collection `id` and writes it as the run folder `out`,
// held by `writer` from the check of its files to the last write; a run already there is
// refused unless overwrite. `xgb train` and `train --model xgboost` (the default on Kernel Tuner
// records) run this; it reports what it reads and writes on stderr, prefixed with `tag`.
void train_run(const data::DataOptions& source, const data::CollectionId& id,
               const XgbOptions& options, const std::string& out, bool overwrite,
               const std::string& writer, const std::string& tag);

}  // namespace graphcost::xgb
