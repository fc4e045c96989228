#include "cli/run_folder.h"

#include <array>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "run/run_config.h"
#include "xgb/options.h"

namespace graphcost::cli {

namespace fs = std::filesystem;

namespace {
// The files a training run (or a stack) writes.
constexpr std::array<const char*, 9> kRunFiles = {
    "model.pt",      "model.xgb",          "config.json", "metrics.jsonl",
    "checkpoint.pt", "valid_predictions.jsonl", "report.html", stack::kMetaModelFile,
    stack::kOtherDevicesFile};

// A member's folder as a stack stores it: relative to the stack when inside it, else absolute.
std::string stored_member_path(const std::string& out, const std::string& member) {
  const fs::path stack = fs::weakly_canonical(fs::absolute(out));
  const fs::path path = fs::weakly_canonical(fs::absolute(member));
  const fs::path relative = path.lexically_relative(stack);
  const bool inside = !relative.empty() && *relative.begin() != "..";
  return inside ? relative.string() : path.string();
}
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

void write_stack_run(const std::string& out, const std::vector<std::string>& members,
                     const data::DataOptions& source, const data::CollectionId& id,
                     const stack::MetaLearner& meta, const stack::OtherDevices* other_devices,
                     const nlohmann::json& settings) {
  meta.save_model(out);
  if (other_devices) {
    write_file_atomically((fs::path(out) / stack::kOtherDevicesFile).string(),
                          other_devices->to_json().dump() + "\n");
  }
  nlohmann::json stored = nlohmann::json::array();
  for (const std::string& member : members) stored.push_back(stored_member_path(out, member));
  nlohmann::json stacked = {{"members", stored}, {"other_devices", other_devices != nullptr}};
  for (const auto& [key, value] : settings.items()) stacked[key] = value;
  const nlohmann::json learner = meta.to_json();  // named: items() does not keep it alive
  for (const auto& [key, value] : learner.items()) stacked[key] = value;
  run::write_run_config(out, run::ModelType::Stack,
                        {{"data", source.data},
                         {"collection", id.str()},
                         {"split", source.split},
                         {"exclude", source.exclude},
                         {"skip_invalid", source.skip_invalid},
                         {"prune_hops", source.prune_hops},
                         {"prune_seeds", source.prune_seeds},
                         {"stack", stacked}});
}

}  // namespace graphcost::cli
