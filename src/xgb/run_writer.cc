#include "xgb/run_writer.h"

#include <cstdio>

#include "io/collection_readers.h"
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

void train_run(const data::DataOptions& source, const data::CollectionId& id,
               const XgbOptions& options, const std::string& out, bool overwrite,
               const std::string& writer, const std::string& tag) {
  const run::RunFolder folder(out);
  const auto folder_lock = folder.lock(writer);
  folder.check_new(overwrite, false);
  auto train_set =
      io::open_collection(source.data, id, source.split, source.unpruned_load_options());
  std::fprintf(stderr, "%s: %s: %lld training graphs, %lld rounds\n", tag.c_str(), id.str().c_str(),
               static_cast<long long>(train_set->size()), static_cast<long long>(options.rounds));
  const XgbRanker ranker = XgbRanker::train(*train_set, options);
  // The folder exists: the lock made it.
  if (overwrite) folder.remove_run_files();
  write_run(folder, ranker, source, id);
  std::fprintf(stderr, "%s: model in %s\n", tag.c_str(), folder.xgboost_model_path().c_str());
}

}  // namespace graphcost::xgb
