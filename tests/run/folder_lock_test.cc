#include "run/folder_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "../io/temp_dir.h"

namespace graphcost::run {
namespace {

namespace fs = std::filesystem;

// A child process that holds the lock on dir until killed; returns its pid once it holds it.
pid_t hold_in_child(const std::string& dir) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    try {
      FolderLock lock(dir, "graphcost train");
      const char ok = 1;
      if (::write(ready[1], &ok, 1) != 1) ::_exit(2);
      ::pause();
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  char ok = 0;
  const bool held = ::read(ready[0], &ok, 1) == 1 && ok == 1;
  ::close(ready[0]);
  if (!held) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }
  return pid;
}

TEST(FolderLock, ASecondWriterIsRefusedNamingTheHolderAndLocksOnceItDies) {
  TempDir temp;
  const std::string dir = temp.path() + "/run";
  const pid_t holder = hold_in_child(dir);
  ASSERT_GT(holder, 0);
  std::string message;
  try {
    FolderLock second(dir, "graphcost train");
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_EQ(message.rfind(dir + ": in use by another writer (pid " + std::to_string(holder) +
                              " on ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find(": graphcost train, since "), std::string::npos) << message;
  // kill -9: the kernel drops the lock, and the lock file left behind blocks no one.
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  EXPECT_TRUE(fs::exists(fs::path(dir) / kFolderLockFile));
  EXPECT_NO_THROW(FolderLock(dir, "graphcost train"));
}

TEST(FolderLock, TheSameProcessMayLockAFolderAgain) {
  TempDir temp;
  const std::string dir = temp.path() + "/run";
  FolderLock front_end(dir, "graphcost train");
  std::ofstream(dir + "/config.json") << "{}";
  {
    FolderLock trainer(dir + "/", "graphcost train");  // the same folder, spelled otherwise
    EXPECT_EQ(trainer.stale_files_removed(), 0);
  }
  // The inner handle's end released nothing: another process is still refused.
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      FolderLock other(dir, "other");
    } catch (const Error&) {
      ::_exit(7);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(FolderLock, TakingItRemovesTemporaryFilesOfKilledWritersOnly) {
  TempDir temp;
  const std::string dir = temp.path() + "/run";
  fs::create_directories(dir);
  for (const char* name : {"checkpoint.pt.tmp.4242", "metrics.jsonl.tmp.17", "model.pt",
                           "notes.tmp.txt", "x.tmp.", "data.tmp.12a"})
    std::ofstream(dir + "/" + name) << "x";
  FolderLock lock(dir, "graphcost train");
  EXPECT_EQ(lock.stale_files_removed(), 2);
  EXPECT_FALSE(fs::exists(dir + "/checkpoint.pt.tmp.4242"));
  EXPECT_FALSE(fs::exists(dir + "/metrics.jsonl.tmp.17"));
  for (const char* kept : {"model.pt", "notes.tmp.txt", "x.tmp.", "data.tmp.12a"})
    EXPECT_TRUE(fs::exists(dir + "/" + kept)) << kept;
}

TEST(FolderLock, ARefusedStartLeavesNoFolderBehind) {
  TempDir temp;
  const std::string dir = temp.path() + "/new/run";
  { FolderLock lock(dir, "graphcost train"); }
  EXPECT_FALSE(fs::exists(dir));
  // A folder that existed before stays, without the lock file.
  fs::create_directories(dir);
  { FolderLock lock(dir, "graphcost train"); }
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_FALSE(fs::exists(fs::path(dir) / kFolderLockFile));
  // A folder with a run in it keeps its lock file (removing it could split the lock).
  std::ofstream(dir + "/model.pt") << "x";
  { FolderLock lock(dir, "graphcost train"); }
  EXPECT_TRUE(fs::exists(fs::path(dir) / kFolderLockFile));
}

TEST(FolderLock, TemporaryFileNames) {
  EXPECT_TRUE(is_temporary_file_name("checkpoint.pt.tmp.1"));
  EXPECT_TRUE(is_temporary_file_name("a.tmp.0123456789"));
  EXPECT_FALSE(is_temporary_file_name(".tmp.12"));
  EXPECT_FALSE(is_temporary_file_name("a.tmp."));
  EXPECT_FALSE(is_temporary_file_name("a.tmp.1x"));
  EXPECT_FALSE(is_temporary_file_name("a.tmp"));
}

}  // namespace
}  // namespace graphcost::run
