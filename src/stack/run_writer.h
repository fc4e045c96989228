// Writing a fitted stack as a run folder (run/run_folder.h), which eval, predict, serve and
// Python then load as any run (infer/stack.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/collection.h"
#include "data/data_options.h"
#include "run/run_folder.h"
#include "stack/meta_learner.h"
#include "stack/other_devices.h"

namespace graphcost::stack {

// Writes into `folder` (which must exist) the XGBoost meta-learner's trees (meta.xgb) and the
// other-devices table (other_devices.json) where the stack has them, then config.json
// (model_type "stack") with the data it was fitted on (`source`, collection `id`, the members'
// pruning) and under "stack" the member folders (relative to the stack's folder when inside it,
// else absolute: members are not copied, a neural member's files can be large), `settings` (how
// it was fitted) and the meta-learner.
void write_run(const run::RunFolder& folder, const std::vector<std::string>& members,
               const data::DataOptions& source, const data::CollectionId& id,
               const MetaLearner& meta, const OtherDevices* other_devices,
               const nlohmann::json& settings);

}  // namespace graphcost::stack
