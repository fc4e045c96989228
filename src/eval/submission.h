// Kaggle submission files: "ID,TopConfigs", one row per graph, configuration indices fastest
// first joined by ';' (tile: the top 5; layout: all). See shared/docs/metrics.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "data/collection.h"

namespace graphcost::eval {

// One graph (file stem) of a collection and its predicted costs, one per configuration.
struct SubmissionEntry {
  std::string stem;
  std::vector<double> predicted;
};

// "tile:xla:<stem>" or "layout:<xla|nlp>:<default|random>:<stem>".
std::string submission_id(const std::string& collection_id, const std::string& stem);
// The TopConfigs field: indices fastest first joined by ';', the top 5 for tile, all for layout.
std::string top_configs(data::ConfigKind kind, const std::vector<double>& predicted);
// The whole file text, header included. collection_id must be one of the five valid ids; an
// empty prediction, a stem with ',' or a repeated stem is an Error.
std::string format_submission(const std::string& collection_id,
                              const std::vector<SubmissionEntry>& entries);
// Writes format_submission(...) to path atomically.
void write_submission(const std::string& path, const std::string& collection_id,
                      const std::vector<SubmissionEntry>& entries);
inline void write_submission(const std::string& path, const data::CollectionId& id,
                             const std::vector<SubmissionEntry>& entries) {
  write_submission(path, id.str(), entries);
}
// One row of a submission file: its ID and the configuration indices it lists, fastest first.
struct SubmissionRow {
  std::string id;
  std::vector<int64_t> top_configs;
};
// Reads a submission file back, rows in file order. A missing or wrong header, a malformed row,
// an index that is not a non-negative integer or an ID seen twice is an Error naming the file
// and the line or ID.
std::vector<SubmissionRow> read_submission(const std::string& path);
// Splits a submission ID into its collection id and file stem ("layout:xla:random:net" gives
// {"layout:xla:random", "net"}); an ID of none of the five collections is an Error naming
// `where` (the file) and the ID.
std::pair<std::string, std::string> split_submission_id(const std::string& id,
                                                        const std::string& where);
// The predicted costs a ranking of a graph's `count` configurations implies: each listed
// configuration's position, the unlisted ones tied after them. A layout ranking must list every
// configuration once; a tile ranking at least one (Kaggle's files list 5). An index out of range
// or listed twice is an Error naming `where`.
std::vector<double> costs_from_ranking(data::ConfigKind kind, const std::vector<int64_t>& ranking,
                                       int64_t count, const std::string& where);

// Concatenates several submission files into one (one header), atomically. A missing or wrong
// header, a malformed row, an ID of no collection, an index that is not a non-negative integer
// or is listed twice in a row, or an ID seen twice is an Error naming the file (and the ID or
// line).
void merge_submissions(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace graphcost::eval
