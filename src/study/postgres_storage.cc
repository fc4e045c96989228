// The PostgreSQL side of study storage (libpq): workers on several machines share one server.
#include <libpq-fe.h>

#include <cstdio>

#include "core/error.h"
#include "study/database.h"

namespace graphcost::study {

namespace {

// libpq's messages span lines ("connection to server ... failed: ...\n\tIs the server
// running...?"): one line for an Error.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  std::string squeezed;
  for (char c : text)
    if (!(c == ' ' && (squeezed.empty() || squeezed.back() == ' '))) squeezed += c;
  while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
  return squeezed;
}

class PostgresDatabase : public Database {
 public:
  PostgresDatabase(const std::string& url, const std::string& shown_url) : name_(shown_url) {
    connection_ = PQconnectdb(url.c_str());
    if (connection_ == nullptr || PQstatus(connection_) != CONNECTION_OK) {
      const std::string problem =
          connection_ ? one_line(PQerrorMessage(connection_)) : "out of memory";
      PQfinish(connection_);
      connection_ = nullptr;
      throw Error(name_, "", "cannot connect: " + problem);
    }
    // Notices (CREATE TABLE IF NOT EXISTS on an existing table) are not worth printing.
    PQsetNoticeProcessor(
        connection_, [](void*, const char*) {}, nullptr);
  }
  ~PostgresDatabase() override { PQfinish(connection_); }

  std::vector<SqlRow> query(const std::string& sql,
                            const std::vector<SqlValue>& parameters) override {
    std::vector<std::string> texts(parameters.size());
    std::vector<const char*> values(parameters.size(), nullptr);
    for (size_t i = 0; i < parameters.size(); ++i) {
      const SqlValue& v = parameters[i];
      if (std::holds_alternative<std::nullptr_t>(v)) continue;
      if (auto* n = std::get_if<int64_t>(&v))
        texts[i] = std::to_string(*n);
      else if (auto* d = std::get_if<double>(&v)) {
        char text[40];
        std::snprintf(text, sizeof text, "%.17g", *d);
        texts[i] = text;
      } else {
        texts[i] = std::string(std::get<std::string_view>(v));
      }
      values[i] = texts[i].c_str();
    }
    PGresult* result = PQexecParams(connection_, sql.c_str(), static_cast<int>(values.size()),
                                    nullptr, values.data(), nullptr, nullptr, 0);
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const std::string problem = one_line(PQresultErrorMessage(result));
      PQclear(result);
      const std::string first_words = sql.substr(0, sql.find_first_of("(\n"));
      throw Error(name_, "", problem + " (in \"" + first_words + "\")");
    }
    std::vector<SqlRow> rows;
    for (int r = 0; r < PQntuples(result); ++r) {
      SqlRow row;
      for (int c = 0; c < PQnfields(result); ++c) {
        if (PQgetisnull(result, r, c))
          row.emplace_back(std::nullopt);
        else
          row.emplace_back(std::string(PQgetvalue(result, r, c), PQgetlength(result, r, c)));
      }
      rows.push_back(std::move(row));
    }
    PQclear(result);
    return rows;
  }

  void begin_write() override { query("BEGIN", {}); }
  bool is_postgres() const override { return true; }
  const std::string& name() const override { return name_; }

 private:
  PGconn* connection_ = nullptr;
  std::string name_;
};

}  // namespace

std::unique_ptr<Database> open_postgres(const std::string& url, const std::string& shown_url) {
  return std::make_unique<PostgresDatabase>(url, shown_url);
}

}  // namespace graphcost::study
