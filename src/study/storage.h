// Where a study's trials live: one SQL database (SQLite file or PostgreSQL server) that every
// worker of the study reads and writes, so several processes or machines share one study
// (docs/study.md, "Storage").
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "study/trial.h"

namespace graphcost::study {

// The schema version this build writes; a database of a newer version is refused.
constexpr int64_t kSchemaVersion = 1;

// What a study was created with.
struct StudyInfo {
  int64_t id = 0;
  bool maximize = true;
  nlohmann::json space;     // the space file's JSON
  nlohmann::json settings;  // open_study's settings
};

class Storage {
 public:
  virtual ~Storage() = default;
  // Creates the study or opens it; an existing one must have the same direction and space, else
  // an Error saying what differs. Returns the study id.
  virtual int64_t open_study(const std::string& name, bool maximize,
                             const nlohmann::json& space_json, const nlohmann::json& settings) = 0;
  // In one transaction: fails running trials whose heartbeat is older than heartbeat_timeout_s
  // (when > 0; state failed, message "timed out: ..."); then, if the study holds fewer than
  // `total` trials (any state), creates trial number = count, running, owned by `worker`, and
  // returns it, else nullopt. With `grid`, the trial takes the smallest grid index in
  // [0, grid_size) that no trial holds (a failed trial's index is free again: the failed trial
  // is marked retried); nullopt when every index is held.
  virtual std::optional<TrialRecord> claim_trial(int64_t study, int64_t total,
                                                 double heartbeat_timeout_s,
                                                 const std::string& worker, bool grid,
                                                 int64_t grid_size) = 0;
  virtual void set_params(int64_t study, int64_t trial, const nlohmann::json& params,
                          const std::string& run_dir) = 0;
  // An intermediate value (a repeated step overwrites); also refreshes the heartbeat.
  virtual void report(int64_t study, int64_t trial, int64_t step, double value) = 0;
  virtual void heartbeat(int64_t study, int64_t trial) = 0;
  // Ends a running trial; finishing a trial that is no longer running (timed out meanwhile, or
  // finished twice) is an Error.
  virtual void finish(int64_t study, int64_t trial, TrialState state, std::optional<double> value,
                      const std::string& message) = 0;
  // Every trial of the study by number, with params, state, value, intermediate values, run_dir,
  // worker, times, message and grid index.
  virtual std::vector<TrialRecord> trials(int64_t study) = 0;
  virtual std::vector<std::string> study_names() = 0;
  // The settings the study was created with (open_study's `settings`).
  virtual nlohmann::json study_settings(int64_t study) = 0;
  // The study of this name, or nullopt when the database has none.
  virtual std::optional<StudyInfo> find_study(const std::string& name) = 0;
};

// "sqlite:///relative/path.db", "sqlite:////absolute/path.db" (as SQLAlchemy spells them) or
// "postgresql://user@host:port/dbname" (a libpq connection URI; "postgres://" too). Creates the
// schema in an empty database. A bad URL is an Error of one line naming the URL (its password
// masked) and what is wrong.
std::unique_ptr<Storage> open_storage(const std::string& url);

}  // namespace graphcost::study
