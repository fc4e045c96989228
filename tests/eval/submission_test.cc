#include "eval/submission.h"

#include <gtest/gtest.h>

#include <filesystem>

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
}

}  // namespace
}  // namespace graphcost::eval
