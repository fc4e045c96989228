#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

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

TEST(AtomicFile, AFolderIsNotReadAsAnEmptyFile) {
  const std::string dir = temp_dir();
  try {
    read_file(dir);
    FAIL() << "no error for a folder";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": is a folder, not a file");
  }
}

// #40: a write past the file-size limit (or a full disk) is an Error that leaves the old content
// and no temporary file, in a child process that has the limit (and ignores SIGXFSZ, as
// graphcost's main does).
TEST(AtomicFile, AFailedWriteKeepsTheOldFileAndRemovesTheTemporary) {
  const std::string dir = temp_dir() + "/limited";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/checkpoint.pt";
  write_file_atomically(path, "old");
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{1 << 16, 1 << 16};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(10);
    try {
      write_file_atomically(path, std::string(1 << 20, 'x'));
    } catch (const Error& e) {
      const std::string what = e.what();
      const bool named = what.rfind(path + ": ", 0) == 0 && what.find("File too large") != std::string::npos;
      ::_exit(named ? 0 : 11);
    }
    ::_exit(12);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(read_file(path), "old");
  int files = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
}

}  // namespace
}  // namespace graphcost
