// The SQLite side of study storage: one file, shared by worker processes on one machine.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "core/error.h"
#include "study/database.h"

namespace graphcost::study {

namespace {

class SqliteDatabase : public Database {
 public:
  SqliteDatabase(const std::string& path, const std::string& shown_url) : name_(shown_url) {
    const int rc =
        sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      const std::string problem = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw Error(name_, "", "cannot open the database: " + problem);
    }
    // Writers wait for each other (up to a minute) instead of failing with SQLITE_BUSY; WAL lets
    // readers go on while one worker writes.
    sqlite3_busy_timeout(db_, 60000);
    try {
      // Switching a new file to WAL needs it alone, and SQLite does not wait through the busy
      // handler when another process is opening the same new file at that moment ("database is
      // locked" at once, seen with two workers starting together): retry for up to a minute.
      for (int attempt = 0;; ++attempt) {
        try {
          query("PRAGMA journal_mode=WAL", {});
          break;
        } catch (const Error&) {
          if ((sqlite3_errcode(db_) & 0xff) != SQLITE_BUSY || attempt >= 1200) throw;
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      }
      query("PRAGMA foreign_keys=ON", {});
    } catch (...) {
      sqlite3_close(db_);
      throw;
    }
  }
  ~SqliteDatabase() override { sqlite3_close(db_); }

  std::vector<SqlRow> query(const std::string& sql,
                            const std::vector<SqlValue>& parameters) override {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) fail(sql);
    std::vector<SqlRow> rows;
    try {
      for (size_t i = 0; i < parameters.size(); ++i) {
        // "$1" in the text is a named parameter for SQLite: look its index up by name.
        const std::string name = "$" + std::to_string(i + 1);
        const int index = sqlite3_bind_parameter_index(statement, name.c_str());
        if (index == 0) continue;
        const SqlValue& v = parameters[i];
        int rc = SQLITE_OK;
        if (std::holds_alternative<std::nullptr_t>(v))
          rc = sqlite3_bind_null(statement, index);
        else if (auto* n = std::get_if<int64_t>(&v))
          rc = sqlite3_bind_int64(statement, index, *n);
        else if (auto* d = std::get_if<double>(&v))
          rc = sqlite3_bind_double(statement, index, *d);
        else {
          const std::string_view s = std::get<std::string_view>(v);
          rc = sqlite3_bind_text(statement, index, s.data(), static_cast<int>(s.size()),
                                 SQLITE_TRANSIENT);
        }
        if (rc != SQLITE_OK) fail(sql);
      }
      for (;;) {
        const int rc = sqlite3_step(statement);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) fail(sql);
        SqlRow row;
        for (int c = 0; c < sqlite3_column_count(statement); ++c) {
          switch (sqlite3_column_type(statement, c)) {
            case SQLITE_NULL:
              row.emplace_back(std::nullopt);
              break;
            case SQLITE_FLOAT: {
              char text[40];
              std::snprintf(text, sizeof text, "%.17g", sqlite3_column_double(statement, c));
              row.emplace_back(text);
              break;
            }
            default: {
              const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, c));
              row.emplace_back(std::string(text, sqlite3_column_bytes(statement, c)));
            }
          }
        }
        rows.push_back(std::move(row));
      }
    } catch (...) {
      sqlite3_finalize(statement);
      throw;
    }
    sqlite3_finalize(statement);
    return rows;
  }

  void begin_write() override { query("BEGIN IMMEDIATE", {}); }
  bool is_postgres() const override { return false; }
  const std::string& name() const override { return name_; }

 private:
  [[noreturn]] void fail(const std::string& sql) {
    const std::string first_words = sql.substr(0, sql.find_first_of("(\n"));
    throw Error(name_, "", std::string(sqlite3_errmsg(db_)) + " (in \"" + first_words + "\")");
  }
  sqlite3* db_ = nullptr;
  std::string name_;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path, const std::string& shown_url) {
  return std::make_unique<SqliteDatabase>(path, shown_url);
}

}  // namespace graphcost::study
