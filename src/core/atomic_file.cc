#include "core/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace graphcost {

AtomicFile::AtomicFile(const std::string& path)
    : path_(path), temp_path_(path + ".tmp." + std::to_string(::getpid())) {
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) throw Error(path_, "", std::string("cannot create file: ") + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicFile::write(const void* data, size_t bytes) {
  if (bytes == 0) return;
  if (std::fwrite(data, 1, bytes, file_) != bytes) {
    throw Error(path_, "", std::string("write failed: ") + std::strerror(errno));
  }
  offset_ += bytes;
}

void AtomicFile::commit() {
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
    throw Error(path_, "", std::string("flush failed: ") + std::strerror(errno));
  }
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw Error(path_, "", std::string("rename failed: ") + std::strerror(errno));
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

std::string read_file(const std::string& path) {
  // A folder opens as a stream that reads nothing: it would pass for an empty file.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error(path, "", "is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "", "cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(path, "", "read failed");
  return buffer.str();
}

}  // namespace graphcost
