// Writing a trained XGBoost ranker as a run folder (run/run_folder.h), which eval, predict, serve
// and Python then load as any run.
#pragma once

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

}  // namespace graphcost::xgb
