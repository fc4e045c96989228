#include "xgb/run_writer.h"

#include "xgb/options.h"

namespace graphcost::xgb {

void write_run(const run::RunFolder& folder, const XgbRanker& ranker,
               const data::DataOptions& source, const data::CollectionId& id) {
  ranker.save(folder.xgboost_model_path());
  nlohmann::json options;
  to_json(options, ranker.options());
  nlohmann::json config = run::trained_data_keys(source, id);
  config["xgboost"] = options;
  folder.write_config(run::ModelType::XGBoost, config);
}

}  // namespace graphcost::xgb
