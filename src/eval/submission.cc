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
    std::vector<std::string> lines = split_lines(read_file(input));
    check_data(!lines.empty() && lines[0] == kHeader, input, "header",
               "expected '" + std::string(kHeader) + "'");
    for (size_t n = 1; n < lines.size(); ++n) {
      const std::string& line = lines[n];
      const std::string where = "line " + std::to_string(n + 1);
      if (line.empty()) continue;
      const size_t comma = line.find(',');
      check_data(comma != std::string::npos && comma > 0 &&
                     line.find(',', comma + 1) == std::string::npos && comma + 1 < line.size(),
                 input, where, "expected 'ID,TopConfigs', got '" + line + "'");
      const std::string id = line.substr(0, comma);
      auto [it, inserted] = first_file_of_id.emplace(id, input);
      check_data(inserted, input, id, "duplicate ID (already in " + it->second + ")");
      text += line + "\n";
    }
  }
  write_file_atomically(output, text);
}

}  // namespace graphcost::eval
