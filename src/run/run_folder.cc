#include "run/run_folder.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace graphcost::run {

namespace fs = std::filesystem;

namespace {

constexpr char kConfigFile[] = "config.json";
constexpr char kModelFile[] = "model.pt";
constexpr char kXgboostModelFile[] = "model.xgb";
constexpr char kCheckpointFile[] = "checkpoint.pt";
constexpr char kMetricsFile[] = "metrics.jsonl";
constexpr char kValidPredictionsFile[] = "valid_predictions.jsonl";
constexpr char kReportFile[] = "report.html";
constexpr char kTrialFile[] = "trial.json";
constexpr char kMetaModelFile[] = "meta.xgb";
constexpr char kOtherDevicesFile[] = "other_devices.json";

// The files that make a folder a training run: the new-folder check looks for them and an
// overwrite removes them.
constexpr std::array<const char*, 9> kRunFiles = {
    kModelFile,           kXgboostModelFile, kConfigFile,    kMetricsFile,     kCheckpointFile,
    kValidPredictionsFile, kReportFile,      kMetaModelFile, kOtherDevicesFile};

constexpr std::array<RunState, 4> kStates = {RunState::Unfinished, RunState::Complete,
                                             RunState::Pruned, RunState::Failed};

}  // namespace

const char* run_state_name(RunState state) {
  switch (state) {
    case RunState::Unfinished: return "unfinished";
    case RunState::Complete: return "complete";
    case RunState::Pruned: return "pruned";
    case RunState::Failed: return "failed";
  }
  return "unfinished";
}

RunFolder::RunFolder(std::string dir) : dir_(std::move(dir)) {}

std::string RunFolder::path(const char* name) const { return (fs::path(dir_) / name).string(); }
std::string RunFolder::config_path() const { return path(kConfigFile); }
std::string RunFolder::model_path() const { return path(kModelFile); }
std::string RunFolder::xgboost_model_path() const { return path(kXgboostModelFile); }
std::string RunFolder::checkpoint_path() const { return path(kCheckpointFile); }
std::string RunFolder::metrics_path() const { return path(kMetricsFile); }
std::string RunFolder::valid_predictions_path() const { return path(kValidPredictionsFile); }
std::string RunFolder::report_path() const { return path(kReportFile); }
std::string RunFolder::trial_path() const { return path(kTrialFile); }
std::string RunFolder::meta_model_path() const { return path(kMetaModelFile); }
std::string RunFolder::other_devices_path() const { return path(kOtherDevicesFile); }

bool RunFolder::has_checkpoint() const {
  std::error_code error;
  return fs::exists(checkpoint_path(), error);
}

std::vector<std::string> RunFolder::model_paths() const {
  std::vector<std::string> paths;
  std::error_code error;
  for (const std::string& p : {model_path(), xgboost_model_path()})
    if (fs::exists(p, error)) paths.push_back(p);
  return paths;
}

bool RunFolder::has_model() const { return !model_paths().empty(); }

std::unique_ptr<FolderLock> RunFolder::lock(const std::string& command) const {
  return std::make_unique<FolderLock>(dir_, command);
}

void RunFolder::check_new(bool overwrite, bool resumable) const {
  if (overwrite) return;
  std::error_code error;
  for (const char* name : kRunFiles) {
    if (fs::exists(fs::path(dir_) / name, error)) {
      throw Error(dir_, "",
                  std::string("already holds a training run (") + name + "); " +
                      (resumable && has_checkpoint() ? "--resume continues it, " : "") +
                      "--overwrite replaces it");
    }
  }
}

void RunFolder::remove_run_files() const {
  std::error_code error;
  for (const char* name : kRunFiles) fs::remove(fs::path(dir_) / name, error);
}

void RunFolder::write_config(ModelType type, const nlohmann::json& options) const {
  write_run_config(dir_, type, options);
}

RunConfig RunFolder::read_config() const { return load_run_config(dir_); }

std::optional<std::string> RunFolder::config_text() const {
  const std::string p = config_path();
  if (!fs::exists(p)) return std::nullopt;
  return read_file(p);
}

void RunFolder::start_metrics() const { write_file_atomically(metrics_path(), ""); }

void RunFolder::append_metrics(const nlohmann::json& line) const {
  const std::string p = metrics_path();
  std::ofstream out(p, std::ios::app);
  out << line.dump() << "\n";
  out.flush();
  check_data(out.good(), p, "", "cannot append");
}

void RunFolder::truncate_metrics(int64_t iteration) const {
  const std::string p = metrics_path();
  if (!fs::exists(p)) return;
  std::istringstream in(read_file(p));
  std::string kept, line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object() && parsed.value("iteration", int64_t{0}) <= iteration)
      kept += line + "\n";
  }
  write_file_atomically(p, kept);
}

std::string RunFolder::metrics_text() const {
  const std::string p = metrics_path();
  return fs::exists(p) ? read_file(p) : std::string();
}

nlohmann::json RunFolder::last_metrics() const {
  try {
    const std::string text = metrics_text();
    const size_t end = text.find_last_not_of("\n");
    if (end == std::string::npos) return nullptr;
    const size_t newline = text.rfind('\n', end);
    const size_t start = newline == std::string::npos ? 0 : newline + 1;
    return nlohmann::json::parse(text.substr(start, end + 1 - start));
  } catch (const std::exception&) {
    return nullptr;
  }
}

void RunFolder::write_valid_predictions(const std::string& text) const {
  write_file_atomically(valid_predictions_path(), text);
}

void RunFolder::write_report(const std::string& html) const {
  write_file_atomically(report_path(), html);
}

void RunFolder::write_state(RunState state, const nlohmann::json& record) const {
  nlohmann::json out = record;
  out["state"] = run_state_name(state);
  write_file_atomically(trial_path(), out.dump(2) + "\n");
}

RunState RunFolder::state() const {
  const std::string p = trial_path();
  if (fs::exists(p)) {
    const nlohmann::json record = nlohmann::json::parse(read_file(p), nullptr, false);
    check_data(record.is_object() && record.contains("state") && record["state"].is_string(), p,
               "state", "expected a JSON object with a state string");
    const std::string name = record["state"].get<std::string>();
    for (RunState state : kStates)
      if (name == run_state_name(state)) return state;
    throw Error(p, "state", "unknown state \"" + name + "\" (unfinished, complete, pruned, failed)");
  }
  return has_model() ? RunState::Complete : RunState::Unfinished;
}

}  // namespace graphcost::run
