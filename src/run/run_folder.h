// A run folder: the one owner of a trained run's files. Every file a run holds is named here and
// nowhere else (tests/run/run_file_names_test.cc checks src/ and python/src for it):
//   config.json              the resolved options (run_config.h: format, model type, options)
//   model.pt / model.xgb     the trained model (neural / XGBoost)
//   checkpoint.pt            the last checkpoint of a neural run (resume)
//   metrics.jsonl            one JSON object per logged training iteration
//   valid_predictions.jsonl  the final validation's predictions of the first graphs
//   report.html              `graphcost report`'s page
//   trial.json               how a study's trial ended (its state, value, parameters)
//   meta.xgb                 a stack's XGBoost meta-learner (stack/meta_learner.h)
//   other_devices.json       a stack's other-devices member (stack/other_devices.h)
//   .graphcost.lock          the writer lock (folder_lock.h)
// Writes are atomic (core/atomic_file.h) except the appends to metrics.jsonl. Plain C++: no
// LibTorch.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "run/folder_lock.h"
#include "run/run_config.h"

namespace graphcost::run {

// How a run ended, as a study records it in trial.json. A run with no trial.json is Complete when
// it holds a model and Unfinished otherwise (still training, stopped, or never started).
enum class RunState { Unfinished, Complete, Pruned, Failed };
// "unfinished", "complete", "pruned", "failed" (trial.json's spelling, the study's too).
const char* run_state_name(RunState state);

class RunFolder {
 public:
  explicit RunFolder(std::string dir);
  const std::string& dir() const { return dir_; }

  // The paths of the run's files.
  std::string config_path() const;
  std::string model_path() const;          // model.pt
  std::string xgboost_model_path() const;  // model.xgb
  std::string checkpoint_path() const;
  std::string metrics_path() const;
  std::string valid_predictions_path() const;
  std::string report_path() const;
  std::string trial_path() const;
  std::string meta_model_path() const;     // a stack's meta.xgb
  std::string other_devices_path() const;  // a stack's other_devices.json

  bool has_checkpoint() const;
  // model.pt or model.xgb: the run finished training.
  bool has_model() const;
  // The model files present (model.pt, model.xgb), in that order.
  std::vector<std::string> model_paths() const;

  // Takes the folder's writer lock (folder_lock.h), creating the folder when missing.
  std::unique_ptr<FolderLock> lock(const std::string& command) const;

  // An Error when the folder already holds a run's files and overwrite is false: "DIR: already
  // holds a training run (model.pt); --overwrite replaces it" (with resumable and a checkpoint,
  // "--resume continues it, " is added before the last clause).
  void check_new(bool overwrite, bool resumable) const;
  // Removes the run's files (nothing else), so that a run started again over an old one never
  // shows a mix of the two.
  void remove_run_files() const;

  // config.json: written with format_version and model_type in front of `options`
  // (run_config.h); read checked into a RunConfig.
  void write_config(ModelType type, const nlohmann::json& options) const;
  RunConfig read_config() const;
  // config.json as written, for readers that show it (report, serve); nullopt when absent.
  std::optional<std::string> config_text() const;

  // metrics.jsonl: emptied at a run's start; a line appended per logged iteration; on resume the
  // lines after the checkpoint's iteration dropped (they are about to be redone).
  void start_metrics() const;
  void append_metrics(const nlohmann::json& line) const;
  void truncate_metrics(int64_t iteration) const;
  // The last line of metrics.jsonl parsed; null when absent, empty or damaged.
  nlohmann::json last_metrics() const;
  // The whole of metrics.jsonl ("" when absent).
  std::string metrics_text() const;

  void write_valid_predictions(const std::string& text) const;
  void write_report(const std::string& html) const;

  // trial.json: `record` (a JSON object) with "state" set to the state's name.
  void write_state(RunState state, const nlohmann::json& record) const;
  // The state trial.json records, else Complete or Unfinished by the model file.
  RunState state() const;

 private:
  std::string path(const char* name) const;
  std::string dir_;
};

}  // namespace graphcost::run
