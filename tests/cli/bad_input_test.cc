// Damaged inputs through the real binary: one error line on stderr naming the file, exit
// status 1, never a signal, for npz files and packs alike.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/atomic_file.h"
#include "data/collection.h"
#include "io/pack.h"
#include "io/tpugraphs_npz.h"
#include "../data/test_records.h"
#include "graphcost_binary.h"

namespace graphcost::cli {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  std::string stderr_text;
  int status = -1;  // raw wait status
};

Outcome run_capturing_stderr(const std::string& arguments) {
  const std::string command = graphcost::testing::graphcost_command(arguments) + " 2>&1 >/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  Outcome outcome;
  if (!pipe) return outcome;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) outcome.stderr_text.append(buffer, n);
  outcome.status = pclose(pipe);
  return outcome;
}

void expect_one_line_error(const std::string& arguments, const std::string& file) {
  Outcome o = run_capturing_stderr(arguments);
  ASSERT_TRUE(WIFEXITED(o.status)) << "killed by a signal: " << arguments;
  EXPECT_EQ(WEXITSTATUS(o.status), 1) << o.stderr_text;
  EXPECT_EQ(std::count(o.stderr_text.begin(), o.stderr_text.end(), '\n'), 1) << o.stderr_text;
  EXPECT_EQ(o.stderr_text.rfind("graphcost: error: ", 0), 0u) << o.stderr_text;
  EXPECT_NE(o.stderr_text.find(file), std::string::npos) << o.stderr_text;
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("graphcost_bad_input_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    data::GraphRecord r = data::testing::small_layout_record();
    io::RuntimeColumns runtimes;
    runtimes.runtime_ns = {30, 20, 10};
    npz_ = (dir_ / "good.npz").string();
    io::write_tpugraphs_npz(npz_, r, runtimes, true);
    std::vector<data::GraphRecord> records{r};
    data::MemoryCollection c(data::CollectionId::parse("layout:xla:default"), "train", std::move(records));
    pack_ = (dir_ / "good.pack").string();
    io::write_pack(pack_, c);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A copy of file cut to `keep` bytes, or with one byte flipped at `flip`.
  std::string damaged(const std::string& file, const std::string& name, size_t keep, long flip = -1) {
    std::string bytes = read_file(file);
    if (flip >= 0) bytes[flip] = static_cast<char>(bytes[flip] ^ 0x5A);
    bytes.resize(std::min(keep, bytes.size()));
    std::string path = (dir_ / name).string();
    write_file_atomically(path, bytes);
    return path;
  }

  fs::path dir_;
  std::string npz_;
  std::string pack_;
};

TEST_F(BadInput, TruncatedAndFlippedNpz) {
  const size_t size = fs::file_size(npz_);
  for (size_t keep : {size_t{0}, size_t{10}, size / 2, size - 1}) {
    std::string path = damaged(npz_, "cut" + std::to_string(keep) + ".npz", keep);
    expect_one_line_error("inspect " + path, path);
  }
  std::string flipped = damaged(npz_, "flipped.npz", size, static_cast<long>(size / 3));
  expect_one_line_error("inspect " + flipped, flipped);
}

TEST_F(BadInput, TruncatedAndFlippedPack) {
  const size_t size = fs::file_size(pack_);
  for (size_t keep : {size_t{16}, size / 2, size - 1}) {
    std::string path = damaged(pack_, "cut" + std::to_string(keep) + ".pack", keep);
    expect_one_line_error("inspect " + path, path);
  }
  std::string flipped = damaged(pack_, "flipped.pack", size, static_cast<long>(size - 200));
  expect_one_line_error("inspect " + flipped, flipped);
}

TEST_F(BadInput, MissingFileAndUnknownCollection) {
  expect_one_line_error("inspect " + (dir_ / "absent.npz").string(), "absent.npz");
  expect_one_line_error("eval --baseline random --collection layout:xla --data " + npz_, "layout:xla");
  // inspect names an unknown id instead of finding no files of it.
  expect_one_line_error("inspect " + dir_.string() + " --collection bogus",
                        "unknown collection 'bogus'");
}

// Where the path alone chose the folder, the error says nothing of a collection or split nobody
// asked for.
TEST_F(BadInput, EmptyFolderOrDeviceNamesOnlyThePath) {
  const fs::path empty = dir_ / "empty";
  fs::create_directories(empty);
  Outcome o = run_capturing_stderr("noise " + empty.string());
  EXPECT_EQ(o.stderr_text, "graphcost: error: " + empty.string() + ": no .npz or .pb files\n");
  o = run_capturing_stderr("split " + empty.string() + " --out " + (dir_ / "parts").string());
  EXPECT_EQ(o.stderr_text, "graphcost: error: " + empty.string() + ": no .npz or .pb files\n");
  o = run_capturing_stderr("inspect /dev/null");
  EXPECT_EQ(o.stderr_text,
            "graphcost: error: /dev/null: not an .npz or .pb file, a pack or a folder of them\n");
}

}  // namespace
}  // namespace graphcost::cli
