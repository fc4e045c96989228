// One writer per run folder. A process that writes a run (train, xgb train, the Python module's
// train) holds an exclusive flock(2) on RUN_DIR/.graphcost.lock for as long as it writes; a
// second writer is refused with one line naming the holder ("pid 1234 on host: graphcost train,
// since 2026-12-06 05:30:12 UTC"), which the holder writes into the lock file. The kernel drops
// the lock when the holder dies, even by kill -9, so a stale lock file never blocks anyone.
// Taking the lock also removes the temporary files ("<name>.tmp.<pid>", core/atomic_file.h) that
// a killed writer left in the folder: while the lock is held no other writer can own one.
// Plain C++: no LibTorch.
#pragma once

#include <memory>
#include <string>

namespace graphcost::run {

class FolderLock {
 public:
  // Takes the lock on run_dir (created when missing), or throws Error naming the folder and the
  // holder. `command` says who holds it ("graphcost train"). Within one process the same folder
  // may be locked again (the front-end, then the trainer): the handles share one lock, released
  // with the last. When the last handle goes and the folder holds nothing but the lock file, the
  // lock file goes too, and the folder if this lock created it: a refused start leaves nothing.
  FolderLock(const std::string& run_dir, const std::string& command);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  // Stale temporary files this lock removed when it was taken (0 for a shared handle).
  int stale_files_removed() const { return stale_files_removed_; }

  struct Held;  // one per locked folder in the process

 private:
  std::shared_ptr<Held> held_;
  int stale_files_removed_ = 0;
};

// The lock file's name inside a run folder.
extern const char kFolderLockFile[];

// Whether a file name is one of AtomicFile's temporaries ("<name>.tmp.<digits>").
bool is_temporary_file_name(const std::string& name);

}  // namespace graphcost::run
