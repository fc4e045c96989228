#include "eval/submission.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "eval/metrics.h"

namespace graphcost::eval {

namespace {

const char kHeader[] = "ID,TopConfigs";
constexpr size_t kTileTopConfigs = 5;

const std::vector<std::string>& valid_collection_ids() {
  static const std::vector<std::string> ids = {"tile:xla", "layout:xla:default",
                                               "layout:xla:random", "layout:nlp:default",
                                               "layout:nlp:random"};
  return ids;
}

data::ConfigKind kind_of(const std::string& collection_id) {
  const auto& ids = valid_collection_ids();
  if (std::find(ids.begin(), ids.end(), collection_id) == ids.end()) {
    std::string valid;
    for (const auto& id : ids) valid += (valid.empty() ? "" : ", ") + id;
    throw Error("submission", "collection",
                "unknown id '" + collection_id + "' (valid: " + valid + ")");
  }
  return collection_id.rfind("tile:", 0) == 0 ? data::ConfigKind::Tile : data::ConfigKind::Layout;
}

// Splits text into lines, accepting "\n" or "\r\n" endings; a final empty line is dropped.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

// A row of a submission file as text: the ID and the TopConfigs field.
struct RawRow {
  std::string id;
  std::string top_configs;
};

// The rows of a submission file, after checking its header and that each row is 'ID,TopConfigs'
// with both fields non-empty; empty lines are skipped.
std::vector<RawRow> read_rows(const std::string& path) {
  std::vector<std::string> lines = split_lines(read_file(path));
  check_data(!lines.empty() && lines[0] == kHeader, path, "header",
             "expected '" + std::string(kHeader) + "'");
  std::vector<RawRow> rows;
  for (size_t n = 1; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    if (line.empty()) continue;
    const size_t comma = line.find(',');
    check_data(comma != std::string::npos && comma > 0 &&
                   line.find(',', comma + 1) == std::string::npos && comma + 1 < line.size(),
               path, "line " + std::to_string(n + 1),
               "expected 'ID,TopConfigs', got '" + line + "'");
    rows.push_back({line.substr(0, comma), line.substr(comma + 1)});
  }
  return rows;
}

}  // namespace

std::string submission_id(const std::string& collection_id, const std::string& stem) {
  kind_of(collection_id);
  check_data(!stem.empty() && stem.find_first_of(",\n\r") == std::string::npos, "submission",
             "stem", "'" + stem + "' is empty or holds ',' or a line break");
  return collection_id + ":" + stem;
}

std::string top_configs(data::ConfigKind kind, const std::vector<double>& predicted) {
  std::vector<int64_t> order = rank_fastest_first(predicted);
  if (kind == data::ConfigKind::Tile && order.size() > kTileTopConfigs) {
    order.resize(kTileTopConfigs);
  }
  std::string text;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0) text += ';';
    text += std::to_string(order[i]);
  }
  return text;
}

std::string format_submission(const std::string& collection_id,
                              const std::vector<SubmissionEntry>& entries) {
  const data::ConfigKind kind = kind_of(collection_id);
  std::string text = std::string(kHeader) + "\n";
  std::set<std::string> seen;
  for (const SubmissionEntry& entry : entries) {
    std::string id = submission_id(collection_id, entry.stem);
    check_data(seen.insert(id).second, "submission", id, "graph listed twice");
    check_data(!entry.predicted.empty(), "submission", id, "no configurations to rank");
    text += id + "," + top_configs(kind, entry.predicted) + "\n";
  }
  return text;
}

void write_submission(const std::string& path, const std::string& collection_id,
                      const std::vector<SubmissionEntry>& entries) {
  write_file_atomically(path, format_submission(collection_id, entries));
}

void merge_submissions(const std::vector<std::string>& inputs, const std::string& output) {
  check_data(!inputs.empty(), output, "", "no submission files to merge");
  std::string text = std::string(kHeader) + "\n";
  std::map<std::string, std::string> first_file_of_id;
  for (const std::string& input : inputs) {
    // Every row checked as score reads it: a merged file Kaggle or score would refuse is not
    // written.
    for (const SubmissionRow& row : read_submission(input)) {
      split_submission_id(row.id, input);
      auto [it, inserted] = first_file_of_id.emplace(row.id, input);
      check_data(inserted, input, row.id, "duplicate ID (already in " + it->second + ")");
      std::set<int64_t> listed;
      std::string ranking;
      for (int64_t j : row.top_configs) {
        check_data(listed.insert(j).second, input, row.id,
                   "configuration index " + std::to_string(j) + " listed twice");
        ranking += (ranking.empty() ? "" : ";") + std::to_string(j);
      }
      text += row.id + "," + ranking + "\n";
    }
  }
  write_file_atomically(output, text);
}

std::vector<SubmissionRow> read_submission(const std::string& path) {
  std::vector<SubmissionRow> rows;
  std::set<std::string> seen;
  for (const RawRow& raw : read_rows(path)) {
    check_data(seen.insert(raw.id).second, path, raw.id, "duplicate ID");
    SubmissionRow row{raw.id, {}};
    size_t start = 0;
    while (start <= raw.top_configs.size()) {
      size_t end = raw.top_configs.find(';', start);
      if (end == std::string::npos) end = raw.top_configs.size();
      const std::string field = raw.top_configs.substr(start, end - start);
      const bool digits = !field.empty() && field.size() <= 18 &&
                          field.find_first_not_of("0123456789") == std::string::npos;
      check_data(digits, path, raw.id,
                 "configuration index '" + field + "' is not a non-negative integer");
      row.top_configs.push_back(std::stoll(field));
      start = end + 1;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::pair<std::string, std::string> split_submission_id(const std::string& id,
                                                        const std::string& where) {
  for (const std::string& collection : valid_collection_ids()) {
    if (id.size() > collection.size() + 1 && id.compare(0, collection.size(), collection) == 0 &&
        id[collection.size()] == ':') {
      return {collection, id.substr(collection.size() + 1)};  // no valid id prefixes another
    }
  }
  throw Error(where, id, "not an ID of the five collections (tile:xla:<stem> or "
              "layout:<xla|nlp>:<default|random>:<stem>)");
}

std::vector<double> costs_from_ranking(data::ConfigKind kind, const std::vector<int64_t>& ranking,
                                       int64_t count, const std::string& where) {
  check_data(!ranking.empty(), where, "TopConfigs", "lists no configuration");
  const double unlisted = static_cast<double>(ranking.size());
  std::vector<double> costs(static_cast<size_t>(count), unlisted);
  for (size_t position = 0; position < ranking.size(); ++position) {
    const int64_t j = ranking[position];
    check_data(j >= 0 && j < count, where, "TopConfigs",
               "index " + std::to_string(j) + " is out of range (" + std::to_string(count) +
                   " configurations)");
    check_data(costs[j] == unlisted, where, "TopConfigs",
               "index " + std::to_string(j) + " is listed twice");
    costs[j] = static_cast<double>(position);
  }
  check_data(kind == data::ConfigKind::Tile || static_cast<int64_t>(ranking.size()) == count,
             where, "TopConfigs",
             "a layout ranking must list all " + std::to_string(count) + " configurations, not " +
                 std::to_string(ranking.size()));
  return costs;
}

}  // namespace graphcost::eval
