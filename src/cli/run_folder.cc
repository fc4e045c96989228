#include "cli/run_folder.h"

#include <array>
#include <filesystem>

#include "core/error.h"
#include "run/run_config.h"
#include "xgb/options.h"

namespace graphcost::cli {

namespace fs = std::filesystem;

namespace {
// The files a training run writes.
constexpr std::array<const char*, 7> kRunFiles = {"model.pt",      "model.xgb",
                                                  "config.json",   "metrics.jsonl",
                                                  "checkpoint.pt", "valid_predictions.jsonl",
                                                  "report.html"};
}  // namespace

void check_new_run_folder(const std::string& out, bool overwrite, bool resumable) {
  if (overwrite) return;
  std::error_code error;
  for (const char* name : kRunFiles) {
    if (fs::exists(fs::path(out) / name, error)) {
      throw Error(out, "",
                  std::string("already holds a training run (") + name + "); " +
                      (resumable && fs::exists(fs::path(out) / "checkpoint.pt", error)
                           ? "--resume continues it, "
                           : "") +
                      "--overwrite replaces it");
    }
  }
}

void remove_run_files(const std::string& out) {
  std::error_code error;
  for (const char* name : kRunFiles) fs::remove(fs::path(out) / name, error);
}

void write_xgboost_run(const std::string& out, const xgb::XgbRanker& ranker,
                       const data::DataOptions& source, const data::CollectionId& id) {
  ranker.save((fs::path(out) / "model.xgb").string());
  nlohmann::json options;
  xgb::to_json(options, ranker.options());
  run::write_run_config(out, run::ModelType::XGBoost,
                        {{"data", source.data},
                         {"collection", id.str()},
                         {"split", source.split},
                         {"exclude", source.exclude},
                         {"skip_invalid", source.skip_invalid},
                         {"xgboost", options}});
}

}  // namespace graphcost::cli
