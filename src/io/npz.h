// .npz archives (a zip of <key>.npy entries, stored or DEFLATE), read and written with libzip.
// Reading one key decompresses only that entry.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/array_archive.h"
#include "io/npy.h"

typedef struct zip zip_t;

namespace graphcost::io {

// One reader must not be used from several threads at once (one libzip handle); open one per
// thread instead.
class NpzReader : public ArrayArchive {
 public:
  // Opens the archive; a missing, truncated or non-zip file is an Error naming the path.
  explicit NpzReader(const std::string& path);
  // Opens an archive held in memory (bytes must outlive the reader); errors name `path`. A
  // truncated or non-zip image is an Error, as for a file.
  NpzReader(const std::string& path, const void* bytes, size_t size);
  ~NpzReader() override;
  NpzReader(const NpzReader&) = delete;
  NpzReader& operator=(const NpzReader&) = delete;

  const std::string& path() const override { return path_; }
  std::vector<std::string> keys() const;  // without the ".npy" suffix
  bool has(const std::string& key) const override;
  // Reads and parses one array; a missing key, a bad CRC or a malformed header is an Error
  // of the form "<path>: <key>: <problem>".
  NpyArray read(const std::string& key) const override;
  // Dtype and shape only (decompresses just the header's bytes).
  NpyArray read_header(const std::string& key) const override;
  // The sum of the entries' declared uncompressed sizes: what reading every key would
  // decompress (checked before reading archives from untrusted senders).
  uint64_t declared_bytes() const;

 private:
  void index_entries();

  std::string path_;
  zip_t* archive_ = nullptr;
  std::map<std::string, int64_t> index_;  // key -> zip entry index
};

// Reads every entry of a zip archive to its end, so that libzip checks each one's CRC; a damaged
// or truncated archive is an Error "<path>: <entry>: <problem>". For archives other readers do
// not check (LibTorch's model and checkpoint files).
void verify_zip_archive(const std::string& path);

class NpzWriter {
 public:
  // compress: DEFLATE entries (numpy.savez_compressed) or stored ones (numpy.savez).
  NpzWriter(const std::string& path, bool compress);
  void add(const std::string& key, const NpyArray& array);
  // Writes the archive to a temporary file and renames it to path.
  void commit();

 private:
  std::string path_;
  bool compress_;
  std::vector<std::pair<std::string, std::string>> entries_;  // key -> npy image
};

}  // namespace graphcost::io
