#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"

namespace graphcost {
namespace {

std::string temp_dir() {
  auto dir = std::filesystem::temp_directory_path() /
             ("graphcost_atomic_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(AtomicFile, CommitWritesContent) {
  std::string path = temp_dir() + "/a.txt";
  write_file_atomically(path, "hello");
  EXPECT_EQ(read_file(path), "hello");
}

TEST(AtomicFile, AbandonedWriteLeavesOldContent) {
  std::string path = temp_dir() + "/b.txt";
  write_file_atomically(path, "old");
  {
    AtomicFile file(path);
    file.write(std::string("new but never committed"));
  }
  EXPECT_EQ(read_file(path), "old");
  // No temporary file is left behind.
  int count = 0;
  for (auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    if (entry.path().filename().string().rfind("b.txt", 0) == 0) ++count;
  }
  EXPECT_EQ(count, 1);
}

TEST(AtomicFile, MissingFileIsAnError) {
  EXPECT_THROW(read_file("/nonexistent/graphcost/file"), Error);
  EXPECT_THROW(AtomicFile("/nonexistent/graphcost/dir/file"), Error);
}

}  // namespace
}  // namespace graphcost
