#include "eval/submission.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"
#include "temp_dir.h"

namespace graphcost::eval {
namespace {

// Runs f, expects an Error, and returns its message.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an Error";
  return "";
}

TEST(Submission, LayoutRanksAllConfigsFastestFirst) {
  const std::string path = fresh_temp_dir() + "/layout.csv";
  write_submission(path, "layout:xla:default", {{"a", {0.3, 0.1, 0.2}}, {"b", {1.0, 0.0}}});
  EXPECT_EQ(read_file(path),
            "ID,TopConfigs\n"
            "layout:xla:default:a,1;2;0\n"
            "layout:xla:default:b,1;0\n");
}

TEST(Submission, TileKeepsTheTopFive) {
  EXPECT_EQ(format_submission("tile:xla", {{"k1", {7, 6, 5, 4, 3, 2, 1}}, {"k2", {2, 1}}}),
            "ID,TopConfigs\n"
            "tile:xla:k1,6;5;4;3;2\n"
            "tile:xla:k2,1;0\n");
}

TEST(Submission, TiesKeepIndexOrder) {
  EXPECT_EQ(top_configs(data::ConfigKind::Layout, {1, 0, 1, 0}), "1;3;0;2");
  EXPECT_EQ(submission_id("layout:nlp:random", "bert"), "layout:nlp:random:bert");
}

TEST(Submission, BadInputsAreErrors) {
  EXPECT_NE(error_of([] { format_submission("tile:nlp", {}); }).find("tile:nlp"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              format_submission("tile:xla", {{"a", {1}}, {"a", {2}}});
            }).find("tile:xla:a"),
            std::string::npos);
  error_of([] { format_submission("tile:xla", {{"a", {}}}); });
  error_of([] { format_submission("tile:xla", {{"a,b", {1}}}); });
}

TEST(MergeSubmissions, ConcatenatesUnderOneHeader) {
  const std::string dir = fresh_temp_dir();
  write_submission(dir + "/tile.csv", "tile:xla", {{"k", {2, 1}}});
  write_submission(dir + "/layout.csv", "layout:nlp:default", {{"g", {0, 1}}, {"h", {5, 4}}});
  merge_submissions({dir + "/tile.csv", dir + "/layout.csv"}, dir + "/all.csv");
  EXPECT_EQ(read_file(dir + "/all.csv"),
            "ID,TopConfigs\n"
            "tile:xla:k,1;0\n"
            "layout:nlp:default:g,0;1\n"
            "layout:nlp:default:h,1;0\n");
}

TEST(MergeSubmissions, AcceptsCrLfLineEndings) {
  const std::string dir = fresh_temp_dir();
  write_file_atomically(dir + "/a.csv", "ID,TopConfigs\r\ntile:xla:k,1;0\r\n");
  merge_submissions({dir + "/a.csv"}, dir + "/all.csv");
  EXPECT_EQ(read_file(dir + "/all.csv"), "ID,TopConfigs\ntile:xla:k,1;0\n");
}

TEST(MergeSubmissions, DuplicateIdNamesFileAndId) {
  const std::string dir = fresh_temp_dir();
  write_file_atomically(dir + "/a.csv", "ID,TopConfigs\ntile:xla:k,1;0\n");
  write_file_atomically(dir + "/b.csv", "ID,TopConfigs\ntile:xla:j,0\ntile:xla:k,0;1\n");
  const std::string message = error_of([&] {
    merge_submissions({dir + "/a.csv", dir + "/b.csv"}, dir + "/all.csv");
  });
  EXPECT_NE(message.find(dir + "/b.csv"), std::string::npos) << message;
  EXPECT_NE(message.find("tile:xla:k"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir + "/all.csv"));  // nothing half-written
}

TEST(MergeSubmissions, MalformedInputsAreErrors) {
  const std::string dir = fresh_temp_dir();
  write_file_atomically(dir + "/header.csv", "Id,Configs\ntile:xla:k,1\n");
  write_file_atomically(dir + "/row.csv", "ID,TopConfigs\ntile:xla:k\n");
  write_file_atomically(dir + "/empty.csv", "");
  EXPECT_NE(error_of([&] {
              merge_submissions({dir + "/header.csv"}, dir + "/o.csv");
            }).find("header.csv: header"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              merge_submissions({dir + "/row.csv"}, dir + "/o.csv");
            }).find("row.csv: line 2"),
            std::string::npos);
  error_of([&] { merge_submissions({dir + "/empty.csv"}, dir + "/o.csv"); });
  error_of([&] { merge_submissions({dir + "/missing.csv"}, dir + "/o.csv"); });
  error_of([&] { merge_submissions({}, dir + "/o.csv"); });
  // Rows are checked as score reads them, so no merged file is written that score refuses.
  const auto merged = [&](const std::string& rows) {
    write_file_atomically(dir + "/rows.csv", "ID,TopConfigs\n" + rows);
    return error_of([&] { merge_submissions({dir + "/rows.csv"}, dir + "/o.csv"); });
  };
  EXPECT_EQ(merged("tile:xla:k,1;2;x\n"),
            dir + "/rows.csv: tile:xla:k: configuration index 'x' is not a non-negative integer");
  EXPECT_EQ(merged("tile:xla:k,1;-3\n"),
            dir + "/rows.csv: tile:xla:k: configuration index '-3' is not a non-negative integer");
  EXPECT_EQ(merged("tile:xla:k,1;2;1\n"),
            dir + "/rows.csv: tile:xla:k: configuration index 1 listed twice");
  EXPECT_NE(merged("bogus:coll:g,1\n").find(dir + "/rows.csv"), std::string::npos);
  EXPECT_NE(merged("bogus:coll:g,1\n").find("bogus:coll:g"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/o.csv"));
}

TEST(ReadSubmission, ReadsBackWhatWasWritten) {
  const std::string dir = fresh_temp_dir();
  write_submission(dir + "/a.csv", "layout:xla:random", {{"g", {0.5, 0.1, 0.3}}, {"h", {1, 0}}});
  const std::vector<SubmissionRow> rows = read_submission(dir + "/a.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].id, "layout:xla:random:g");
  EXPECT_EQ(rows[0].top_configs, (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(rows[1].id, "layout:xla:random:h");
  EXPECT_EQ(rows[1].top_configs, (std::vector<int64_t>{1, 0}));
}

TEST(ReadSubmission, BadRowsNameTheFileAndId) {
  const std::string dir = fresh_temp_dir();
  for (const char* field : {"1;;2", "1;-2", "1;x", "1;", "99999999999999999999"}) {
    write_file_atomically(dir + "/bad.csv",
                          std::string("ID,TopConfigs\ntile:xla:k,") + field + "\n");
    const std::string message = error_of([&] { read_submission(dir + "/bad.csv"); });
    EXPECT_NE(message.find(dir + "/bad.csv: tile:xla:k"), std::string::npos)
        << field << ": " << message;
  }
  write_file_atomically(dir + "/twice.csv", "ID,TopConfigs\ntile:xla:k,1\ntile:xla:k,0\n");
  EXPECT_NE(error_of([&] { read_submission(dir + "/twice.csv"); }).find("duplicate ID"),
            std::string::npos);
  write_file_atomically(dir + "/header.csv", "id,top\ntile:xla:k,1\n");
  EXPECT_NE(error_of([&] { read_submission(dir + "/header.csv"); }).find("header"),
            std::string::npos);
}

TEST(SplitSubmissionId, CollectionAndStem) {
  EXPECT_EQ(split_submission_id("tile:xla:conv_A100", "f.csv"),
            (std::pair<std::string, std::string>{"tile:xla", "conv_A100"}));
  EXPECT_EQ(split_submission_id("layout:nlp:default:bert:v2", "f.csv"),
            (std::pair<std::string, std::string>{"layout:nlp:default", "bert:v2"}));
  for (const char* id : {"layout:xla:g", "tile:xla:", "tile:tpu:k", "layout:xla:random"}) {
    EXPECT_NE(error_of([&] { split_submission_id(id, "f.csv"); }).find(std::string("f.csv: ") + id),
              std::string::npos)
        << id;
  }
}

TEST(CostsFromRanking, PositionsThenUnlistedTied) {
  EXPECT_EQ(costs_from_ranking(data::ConfigKind::Layout, {2, 0, 1}, 3, "f"),
            (std::vector<double>{1, 2, 0}));
  EXPECT_EQ(costs_from_ranking(data::ConfigKind::Tile, {3, 1}, 5, "f"),
            (std::vector<double>{2, 1, 2, 0, 2}));
  EXPECT_NE(error_of([] {
              costs_from_ranking(data::ConfigKind::Layout, {1, 0}, 3, "f");
            }).find("all 3 configurations"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              costs_from_ranking(data::ConfigKind::Tile, {0, 3}, 3, "f");
            }).find("index 3 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              costs_from_ranking(data::ConfigKind::Layout, {0, 1, 0}, 3, "f");
            }).find("index 0 is listed twice"),
            std::string::npos);
  error_of([] { costs_from_ranking(data::ConfigKind::Tile, {}, 3, "f"); });
}

}  // namespace
}  // namespace graphcost::eval
