// Study storage over SQL: the schema and every statement, written once for both SQLite and
// PostgreSQL (database.h runs them; $1, $2, ... bind on both).
#include "study/storage.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/error.h"
#include "core/option_table.h"
#include "study/database.h"

namespace graphcost::study {

namespace {

using nlohmann::json;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int64_t to_int(const std::optional<std::string>& text) { return text ? std::stoll(*text) : 0; }
double to_double(const std::optional<std::string>& text) {
  if (!text) return std::numeric_limits<double>::quiet_NaN();
  return std::strtod(text->c_str(), nullptr);
}
SqlValue real_or_null(std::optional<double> value) {
  if (!value || std::isnan(*value)) return nullptr;  // SQLite stores a NaN as NULL anyway
  return *value;
}

// Rolls back unless committed, so an Error in the middle leaves the database as it was.
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) { db_.begin_write(); }
  ~Transaction() {
    if (!done_) try {
        db_.query("ROLLBACK", {});
      } catch (...) {
      }
  }
  void commit() {
    db_.query("COMMIT", {});
    done_ = true;
  }

 private:
  Database& db_;
  bool done_ = false;
};

// The whole schema; only the studies' id column is spelled differently.
std::vector<std::string> schema_statements(bool postgres) {
  const std::string id =
      postgres ? "id BIGSERIAL PRIMARY KEY" : "id INTEGER PRIMARY KEY AUTOINCREMENT";
  return {
      "CREATE TABLE IF NOT EXISTS studies (" + id +
          ", name TEXT NOT NULL UNIQUE, maximize INTEGER NOT NULL, space TEXT NOT NULL, "
          "settings TEXT NOT NULL, created DOUBLE PRECISION NOT NULL)",
      "CREATE TABLE IF NOT EXISTS trials (study_id BIGINT NOT NULL REFERENCES studies (id), "
      "number BIGINT NOT NULL, state TEXT NOT NULL, params TEXT NOT NULL, value DOUBLE "
      "PRECISION, run_dir TEXT NOT NULL DEFAULT '', worker TEXT NOT NULL DEFAULT '', heartbeat "
      "DOUBLE PRECISION NOT NULL, started DOUBLE PRECISION NOT NULL, finished DOUBLE PRECISION, "
      "message TEXT NOT NULL DEFAULT '', grid_index BIGINT, retried INTEGER NOT NULL DEFAULT 0, "
      "PRIMARY KEY (study_id, number))",
      // A grid point is held by one trial at a time: the failed trials it was taken back from
      // are marked retried.
      "CREATE UNIQUE INDEX IF NOT EXISTS trials_grid_index ON trials (study_id, grid_index) "
      "WHERE grid_index IS NOT NULL AND retried = 0",
      "CREATE TABLE IF NOT EXISTS intermediate_values (study_id BIGINT NOT NULL, number BIGINT "
      "NOT NULL, step BIGINT NOT NULL, value DOUBLE PRECISION, PRIMARY KEY (study_id, number, "
      "step), FOREIGN KEY (study_id, number) REFERENCES trials (study_id, number))",
  };
}

class SqlStorage : public Storage {
 public:
  explicit SqlStorage(std::unique_ptr<Database> db) : db_(std::move(db)) { create_schema(); }

  int64_t open_study(const std::string& name, bool maximize, const json& space_json,
                     const json& settings) override {
    Transaction transaction(*db_);
    db_->query(
        "INSERT INTO studies (name, maximize, space, settings, created) VALUES ($1, $2, "
        "$3, $4, $5) ON CONFLICT (name) DO NOTHING",
        {name, int64_t{maximize}, space_json.dump(), settings.dump(), unix_now()});
    const auto rows = db_->query("SELECT id, maximize, space FROM studies WHERE name = $1", {name});
    const std::string key = "study " + name;
    const bool stored_maximize = to_int(rows.at(0)[1]) != 0;
    if (stored_maximize != maximize)
      throw Error(db_->name(), key,
                  std::string("exists with direction ") +
                      (stored_maximize ? "maximize" : "minimize") + ", not " +
                      (maximize ? "maximize" : "minimize"));
    const json stored_space = json::parse(rows.at(0)[2].value_or("null"));
    if (stored_space != space_json) {
      std::string keys;
      for (const std::string& k : differing_keys(stored_space, space_json))
        keys += (keys.empty() ? "" : ", ") + k;
      throw Error(db_->name(), key, "exists with another space (differs at " + keys + ")");
    }
    transaction.commit();
    return to_int(rows.at(0)[0]);
  }

  std::optional<TrialRecord> claim_trial(int64_t study, int64_t total, double heartbeat_timeout_s,
                                         const std::string& worker, bool grid,
                                         int64_t grid_size) override {
    Transaction transaction(*db_);
    // PostgreSQL: the study's row lock orders concurrent claims (SQLite's BEGIN IMMEDIATE
    // already holds the database's write lock).
    if (db_->is_postgres()) db_->query("SELECT id FROM studies WHERE id = $1 FOR UPDATE", {study});
    const double now = unix_now();
    if (heartbeat_timeout_s > 0) {
      char message[96];
      std::snprintf(message, sizeof message, "timed out: no heartbeat for more than %g s",
                    heartbeat_timeout_s);
      db_->query(
          "UPDATE trials SET state = 'failed', finished = $2, message = $3 WHERE "
          "study_id = $1 AND state = 'running' AND heartbeat < $4",
          {study, now, std::string(message), now - heartbeat_timeout_s});
    }
    const int64_t count =
        to_int(db_->query("SELECT COUNT(*) FROM trials WHERE study_id = $1", {study}).at(0)[0]);
    if (count >= total) {
      transaction.commit();
      return std::nullopt;
    }
    SqlValue grid_index = nullptr;
    if (grid) {
      std::set<int64_t> held;
      std::map<int64_t, int64_t> failed;  // grid index -> number of the failed trial holding it
      for (const SqlRow& row : db_->query("SELECT grid_index, state, number FROM trials WHERE "
                                          "study_id = $1 AND grid_index IS NOT NULL AND retried "
                                          "= 0",
                                          {study})) {
        if (row[1] == std::string("failed"))
          failed[to_int(row[0])] = to_int(row[2]);
        else
          held.insert(to_int(row[0]));
      }
      int64_t index = 0;
      while (index < grid_size && held.count(index)) ++index;
      if (index == grid_size) {
        transaction.commit();
        return std::nullopt;
      }
      if (failed.count(index))
        db_->query("UPDATE trials SET retried = 1 WHERE study_id = $1 AND number = $2",
                   {study, failed[index]});
      grid_index = index;
    }
    db_->query(
        "INSERT INTO trials (study_id, number, state, params, worker, heartbeat, started, "
        "grid_index) VALUES ($1, $2, 'running', '{}', $3, $4, $4, $5)",
        {study, count, worker, now, grid_index});
    transaction.commit();
    TrialRecord trial;
    trial.number = count;
    trial.worker = worker;
    trial.started = trial.heartbeat = now;
    if (grid) trial.grid_index = std::get<int64_t>(grid_index);
    return trial;
  }

  void set_params(int64_t study, int64_t trial, const json& params,
                  const std::string& run_dir) override {
    expect_one(db_->query("UPDATE trials SET params = $3, run_dir = $4 WHERE study_id = $1 AND "
                          "number = $2 RETURNING number",
                          {study, trial, params.dump(), run_dir}),
               trial, "does not exist");
  }

  void report(int64_t study, int64_t trial, int64_t step, double value) override {
    Transaction transaction(*db_);
    expect_one(db_->query("UPDATE trials SET heartbeat = $3 WHERE study_id = $1 AND number = $2 "
                          "RETURNING number",
                          {study, trial, unix_now()}),
               trial, "does not exist");
    db_->query(
        "INSERT INTO intermediate_values (study_id, number, step, value) VALUES ($1, $2, "
        "$3, $4) ON CONFLICT (study_id, number, step) DO UPDATE SET value = excluded.value",
        {study, trial, step, real_or_null(value)});
    transaction.commit();
  }

  void heartbeat(int64_t study, int64_t trial) override {
    expect_one(db_->query("UPDATE trials SET heartbeat = $3 WHERE study_id = $1 AND number = $2 "
                          "RETURNING number",
                          {study, trial, unix_now()}),
               trial, "does not exist");
  }

  void finish(int64_t study, int64_t trial, TrialState state, std::optional<double> value,
              const std::string& message) override {
    if (state == TrialState::Running)
      throw Error(db_->name(), "trial " + std::to_string(trial), "cannot finish as running");
    expect_one(db_->query("UPDATE trials SET state = $3, value = $4, message = $5, finished = $6 "
                          "WHERE study_id = $1 AND number = $2 AND state = 'running' RETURNING "
                          "number",
                          {study, trial, std::string(trial_state_name(state)), real_or_null(value),
                           message, unix_now()}),
               trial, "is not running (it timed out, or was finished already)");
  }

  std::vector<TrialRecord> trials(int64_t study) override {
    std::vector<TrialRecord> trials;
    std::map<int64_t, size_t> position;
    for (const SqlRow& row :
         db_->query("SELECT number, state, params, value, run_dir, worker, message, started, "
                    "finished, heartbeat, grid_index, retried FROM trials WHERE study_id = $1 "
                    "ORDER BY number",
                    {study})) {
      TrialRecord t;
      t.number = to_int(row[0]);
      t.state = parse_trial_state(row[1].value_or(""));
      t.params = json::parse(row[2].value_or("{}"));
      if (row[3]) t.value = to_double(row[3]);
      t.run_dir = row[4].value_or("");
      t.worker = row[5].value_or("");
      t.message = row[6].value_or("");
      t.started = to_double(row[7]);
      t.finished = row[8] ? to_double(row[8]) : 0;
      t.heartbeat = to_double(row[9]);
      if (row[10]) t.grid_index = to_int(row[10]);
      t.retried = to_int(row[11]) != 0;
      position[t.number] = trials.size();
      trials.push_back(std::move(t));
    }
    for (const SqlRow& row : db_->query("SELECT number, step, value FROM intermediate_values "
                                        "WHERE study_id = $1",
                                        {study})) {
      auto at = position.find(to_int(row[0]));
      if (at != position.end()) trials[at->second].intermediate[to_int(row[1])] = to_double(row[2]);
    }
    return trials;
  }

  std::vector<std::string> study_names() override {
    std::vector<std::string> names;
    for (const SqlRow& row : db_->query("SELECT name FROM studies ORDER BY id", {}))
      names.push_back(row[0].value_or(""));
    return names;
  }

  std::optional<StudyInfo> find_study(const std::string& name) override {
    const auto rows =
        db_->query("SELECT id, maximize, space, settings FROM studies WHERE name = $1", {name});
    if (rows.empty()) return std::nullopt;
    StudyInfo info;
    info.id = to_int(rows[0][0]);
    info.maximize = to_int(rows[0][1]) != 0;
    info.space = json::parse(rows[0][2].value_or("null"));
    info.settings = json::parse(rows[0][3].value_or("null"));
    return info;
  }

  json study_settings(int64_t study) override {
    const auto rows = db_->query("SELECT settings FROM studies WHERE id = $1", {study});
    if (rows.empty()) throw Error(db_->name(), "study " + std::to_string(study), "does not exist");
    return json::parse(rows[0][0].value_or("null"));
  }

 private:
  void create_schema() {
    Transaction transaction(*db_);
    // PostgreSQL: concurrent CREATE TABLE IF NOT EXISTS can still collide; one creator at a
    // time (a transaction-scoped advisory lock; the key is arbitrary but fixed).
    if (db_->is_postgres()) db_->query("SELECT pg_advisory_xact_lock(7236301)", {});
    db_->query("CREATE TABLE IF NOT EXISTS graphcost_schema (version INTEGER NOT NULL)", {});
    const auto rows = db_->query("SELECT MAX(version) FROM graphcost_schema", {});
    if (rows.empty() || !rows[0][0]) {
      db_->query("INSERT INTO graphcost_schema (version) VALUES ($1)", {kSchemaVersion});
    } else if (to_int(rows[0][0]) > kSchemaVersion) {
      throw Error(db_->name(), "",
                  "the study database has schema version " + *rows[0][0] +
                      ", newer than this graphcost's " + std::to_string(kSchemaVersion) +
                      ": use a newer graphcost");
    }
    for (const std::string& statement : schema_statements(db_->is_postgres()))
      db_->query(statement, {});
    transaction.commit();
  }

  void expect_one(const std::vector<SqlRow>& rows, int64_t trial, const std::string& problem) {
    if (rows.size() != 1) throw Error(db_->name(), "trial " + std::to_string(trial), problem);
  }

  std::unique_ptr<Database> db_;
};

// The URL with the password of its user information (scheme://user:password@host) masked.
std::string masked_url(const std::string& url) {
  const size_t start = url.find("://");
  if (start == std::string::npos) return url;
  const size_t at = url.find('@', start + 3);
  if (at == std::string::npos) return url;
  const size_t colon = url.find(':', start + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

}  // namespace

std::unique_ptr<Storage> open_storage(const std::string& url) {
  const std::string shown = masked_url(url);
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos)
    throw Error(shown, "",
                "not a storage URL (expected sqlite:///PATH or postgresql://USER@HOST:PORT/DB)");
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme == "sqlite") {
    const std::string rest = url.substr(scheme_end + 3);
    if (rest.empty() || rest[0] != '/')
      throw Error(shown, "", "expected sqlite:///PATH (three slashes, four for an absolute path)");
    const std::string path = rest.substr(1);
    if (path.empty()) throw Error(shown, "", "empty path");
    return std::make_unique<SqlStorage>(open_sqlite(path, shown));
  }
  if (scheme == "postgresql" || scheme == "postgres")
    return std::make_unique<SqlStorage>(open_postgres(url, shown));
  throw Error(shown, "",
              "unknown scheme \"" + scheme + "\" (expected sqlite:/// or postgresql://)");
}

}  // namespace graphcost::study
