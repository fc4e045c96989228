// Writes a file atomically: content goes to "<path>.tmp.<pid>" and is renamed over path only
// on commit(), so a crash or an error never leaves a half-written output behind.
#pragma once

#include <cstdio>
#include <string>

namespace graphcost {

class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();  // removes the temporary file unless commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t bytes);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // Current write offset in bytes.
  size_t offset() const { return offset_; }
  // Flushes, fsyncs and renames the temporary file to the final path.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  size_t offset_ = 0;
  bool committed_ = false;
};

// Writes text to path atomically.
void write_file_atomically(const std::string& path, const std::string& text);
// Reads a whole file; throws Error naming the file when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace graphcost
