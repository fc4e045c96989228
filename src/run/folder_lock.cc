#include "run/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>

#include "core/error.h"

namespace graphcost::run {

namespace fs = std::filesystem;

const char kFolderLockFile[] = ".graphcost.lock";

bool is_temporary_file_name(const std::string& name) {
  const size_t at = name.rfind(".tmp.");
  if (at == std::string::npos || at == 0 || at + 5 == name.size()) return false;
  for (size_t i = at + 5; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

struct FolderLock::Held {
  std::string dir;
  std::string lock_path;
  int fd = -1;
  bool created_dir = false;
  pid_t owner = ::getpid();  // a forked child inherits the registry, not the lock

  ~Held() {
    if (fd < 0) return;  // never locked: the folder is someone else's
    // Nothing but the lock file left (a refused or empty start): leave no trace. The file is
    // removed while still locked; a writer that opened it meanwhile finds its inode gone from
    // the path after locking and starts over (take_lock).
    std::error_code error;
    bool only_lock = true;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
      if (entry.path().filename() != kFolderLockFile) {
        only_lock = false;
        break;
      }
    }
    if (!error && only_lock) {
      fs::remove(lock_path, error);
      if (created_dir) fs::remove(dir, error);
    }
    ::close(fd);  // releases the flock
  }
};

namespace {

std::mutex registry_mutex;
// Locks this process holds, by the folder's absolute path.
std::map<std::string, std::weak_ptr<FolderLock::Held>>& registry() {
  static std::map<std::string, std::weak_ptr<FolderLock::Held>> held;
  return held;
}

std::string holder_text(const std::string& command) {
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  char since[64] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return "pid " + std::to_string(::getpid()) + " on " + host + ": " + command + ", since " + since;
}

std::string read_holder(int fd) {
  char buffer[512];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string text = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "a process that has not yet said who it is" : text;
}

// Opens and locks dir's lock file; throws when another process holds it.
int take_lock(const std::string& dir, const std::string& lock_path, const std::string& command) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw Error(dir, "", std::string("cannot create the lock file ") + kFolderLockFile + ": " +
                               std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int code = errno;
      const std::string holder = code == EWOULDBLOCK ? read_holder(fd) : std::string();
      ::close(fd);
      if (code == EWOULDBLOCK)
        throw Error(dir, "",
                    "in use by another writer (" + holder +
                        "); wait for it to end or stop it, or write the run elsewhere");
      throw Error(dir, "", std::string("cannot lock the run folder: ") + std::strerror(code));
    }
    // The previous holder may have removed the file after this open: then the lock is on an
    // inode no one else can find, so start over on the one the path names now.
    struct stat opened {}, named {};
    if (::fstat(fd, &opened) == 0 && ::stat(lock_path.c_str(), &named) == 0 &&
        opened.st_ino == named.st_ino && opened.st_dev == named.st_dev) {
      const std::string text = holder_text(command) + "\n";
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) < 0) {
        // The lock holds without the note; a refused writer then names no holder.
      }
      return fd;
    }
    ::close(fd);
  }
  throw Error(dir, "", "cannot lock the run folder: its lock file keeps being replaced");
}

// Removes the temporary files a killed writer left; returns how many.
int remove_stale_temporaries(const std::string& dir) {
  int removed = 0;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (!entry.is_regular_file(error) || !is_temporary_file_name(entry.path().filename().string()))
      continue;
    if (fs::remove(entry.path(), error)) ++removed;
  }
  return removed;
}

}  // namespace

FolderLock::FolderLock(const std::string& run_dir, const std::string& command) {
  std::error_code error;
  std::lock_guard<std::mutex> guard(registry_mutex);
  bool created_dir = false;
  if (!fs::is_directory(run_dir, error)) {
    created_dir = fs::create_directories(run_dir, error);
    check_data(fs::is_directory(run_dir, error), run_dir, "",
               "cannot create the run folder" + (error ? ": " + error.message() : std::string()));
  }
  // The folder's one name (no trailing slash, no symbolic link), however it was spelled.
  const std::string key = fs::canonical(run_dir, error).string();
  if (std::shared_ptr<Held> shared = registry()[key].lock(); shared && shared->owner == ::getpid()) {
    held_ = std::move(shared);
    return;
  }
  auto held = std::make_shared<Held>();
  held->dir = run_dir;
  held->lock_path = (fs::path(run_dir) / kFolderLockFile).string();
  held->created_dir = created_dir;
  try {
    held->fd = take_lock(run_dir, held->lock_path, command);
  } catch (...) {
    if (held->created_dir) fs::remove(run_dir, error);
    throw;  // held->fd < 0: its destructor leaves the folder alone
  }
  stale_files_removed_ = remove_stale_temporaries(run_dir);
  registry()[key] = held;
  held_ = std::move(held);
}

FolderLock::~FolderLock() {
  std::lock_guard<std::mutex> guard(registry_mutex);
  held_.reset();
}

}  // namespace graphcost::run
