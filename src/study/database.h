// The little SQL the storage needs, over SQLite or libpq (internal to study/storage.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace graphcost::study {

// A statement parameter ($1, $2, ... in the SQL text, for both databases). Text is a view: the
// strings it shows outlive the query call (temporaries of the calling expression do).
using SqlValue = std::variant<std::nullptr_t, int64_t, double, std::string_view>;
// A result row: each column as text (doubles with enough digits to round-trip), or nullopt for
// NULL.
using SqlRow = std::vector<std::optional<std::string>>;

class Database {
 public:
  virtual ~Database() = default;
  // Runs one statement; a failure is an Error naming the database and the database's message.
  virtual std::vector<SqlRow> query(const std::string& sql,
                                    const std::vector<SqlValue>& parameters = {}) = 0;
  // Starts a transaction that holds the write lock from its first statement (SQLite: BEGIN
  // IMMEDIATE; PostgreSQL: BEGIN, the callers lock rows with FOR UPDATE).
  virtual void begin_write() = 0;
  virtual bool is_postgres() const = 0;
  virtual const std::string& name() const = 0;  // the URL, password masked
};

// Open or create the database; Errors name `shown_url`.
std::unique_ptr<Database> open_sqlite(const std::string& path, const std::string& shown_url);
std::unique_ptr<Database> open_postgres(const std::string& url, const std::string& shown_url);

}  // namespace graphcost::study
