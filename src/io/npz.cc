#include "io/npz.h"

#include <fcntl.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/atomic_file.h"
#include "core/error.h"

namespace graphcost::io {

namespace {

const char kSuffix[] = ".npy";
constexpr size_t kSuffixBytes = 4;
// Enough for the magic, version and header length of every .npy format version.
constexpr size_t kPrefixBytes = 12;

std::string libzip_message(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string message = zip_error_strerror(&error);
  zip_error_fini(&error);
  return message;
}

// An open entry of the archive, closed on scope exit.
class EntryReader {
 public:
  EntryReader(zip_t* archive, int64_t index, const std::string& path, const std::string& key)
      : path_(path), key_(key) {
    zip_stat_init(&stat_);
    if (zip_stat_index(archive, index, 0, &stat_) != 0 || !(stat_.valid & ZIP_STAT_SIZE)) {
      throw Error(path_, key_, std::string("cannot stat entry: ") + zip_strerror(archive));
    }
    file_ = zip_fopen_index(archive, index, 0);
    if (!file_)
      throw Error(path_, key_, std::string("cannot open entry: ") + zip_strerror(archive));
  }
  ~EntryReader() {
    if (file_) zip_fclose(file_);
  }
  EntryReader(const EntryReader&) = delete;
  EntryReader& operator=(const EntryReader&) = delete;

  uint64_t declared_size() const { return stat_.size; }
  uint64_t consumed() const { return consumed_; }

  // Reads exactly bytes bytes; a short read means the entry is shorter than declared.
  void read_exactly(void* out, uint64_t bytes) {
    uint8_t* p = static_cast<uint8_t*>(out);
    while (bytes > 0) {
      const zip_int64_t got = zip_fread(file_, p, bytes);
      if (got < 0) fail();
      if (got == 0) {
        throw Error(path_, key_,
                    "entry ends after " + std::to_string(consumed_) + " of " +
                        std::to_string(stat_.size) + " declared bytes");
      }
      p += got;
      bytes -= static_cast<uint64_t>(got);
      consumed_ += static_cast<uint64_t>(got);
    }
  }

  // Reads past the last byte: libzip verifies the CRC only when it reaches the end of data.
  void expect_end() {
    uint8_t extra;
    const zip_int64_t got = zip_fread(file_, &extra, 1);
    if (got < 0) fail();
    if (got > 0) throw Error(path_, key_, "entry holds more bytes than its declared size");
  }

 private:
  [[noreturn]] void fail() {
    throw Error(path_, key_, std::string("cannot read entry: ") + zip_file_strerror(file_));
  }

  std::string path_;
  std::string key_;
  zip_stat_t stat_;
  zip_file_t* file_ = nullptr;
  uint64_t consumed_ = 0;
};

// Reads the .npy header of an entry and returns it parsed (data left unread).
NpyArray read_npy_header(EntryReader& entry, const std::string& context, bool* fortran_order) {
  std::vector<uint8_t> header(kPrefixBytes);
  if (entry.declared_size() < kPrefixBytes) {
    throw Error(context, "",
                "entry of " + std::to_string(entry.declared_size()) +
                    " bytes is too short for a .npy header");
  }
  entry.read_exactly(header.data(), kPrefixBytes);
  // Header length field: 2 bytes (version 1) or 4 bytes (versions 2, 3).
  size_t total = 0;
  if (header[6] == 1) {
    total = 10 + (header[8] | (static_cast<size_t>(header[9]) << 8));
  } else {
    uint32_t length = 0;
    for (int i = 3; i >= 0; --i) length = (length << 8) | header[8 + i];
    total = 12 + static_cast<size_t>(length);
  }
  if (total > entry.declared_size()) {
    // Let the parser report bad magic or version first; otherwise it is a truncated header.
    size_t unused = 0;
    parse_npy_header(header.data(), header.size(), context, &unused);
    throw Error(context, "", "truncated .npy header");
  }
  if (total > kPrefixBytes) {
    header.resize(total);
    entry.read_exactly(header.data() + kPrefixBytes, total - kPrefixBytes);
  }
  size_t header_bytes = 0;
  NpyArray array =
      parse_npy_header(header.data(), header.size(), context, &header_bytes, fortran_order);
  if (header_bytes != entry.consumed()) {
    // A version-1 header shorter than the 12 bytes read ahead: keep the over-read bytes.
    array.data.assign(header.begin() + static_cast<std::ptrdiff_t>(header_bytes), header.end());
  }
  return array;
}

}  // namespace

void verify_zip_archive(const std::string& path) {
  int code = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!archive) throw Error(path, "", "not a valid zip archive (" + libzip_message(code) + ")");
  try {
    const zip_int64_t count = zip_get_num_entries(archive, 0);
    std::vector<uint8_t> buffer(1 << 16);
    for (zip_int64_t i = 0; i < count; ++i) {
      const char* name = zip_get_name(archive, i, ZIP_FL_ENC_RAW);
      EntryReader entry(archive, i, path, name ? name : "entry " + std::to_string(i));
      for (uint64_t left = entry.declared_size(); left > 0;) {
        const uint64_t chunk = std::min<uint64_t>(left, buffer.size());
        entry.read_exactly(buffer.data(), chunk);
        left -= chunk;
      }
      entry.expect_end();
    }
  } catch (...) {
    zip_discard(archive);
    throw;
  }
  zip_discard(archive);
}

NpzReader::NpzReader(const std::string& path) : path_(path) {
  int code = 0;
  archive_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!archive_) {
    if (code == ZIP_ER_NOENT || code == ZIP_ER_OPEN || code == ZIP_ER_READ) {
      throw Error(path, "", "cannot open file (" + libzip_message(code) + ")");
    }
    throw Error(path, "", "not a valid npz archive (" + libzip_message(code) + ")");
  }
  index_entries();
}

NpzReader::NpzReader(const std::string& path, const void* bytes, size_t size) : path_(path) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes, size, 0, &error);
  if (source) {
    archive_ = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
    if (!archive_) zip_source_free(source);  // zip_open_from_source keeps it only on success
  }
  if (!archive_) {
    const std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw Error(path, "", "not a valid npz archive (" + message + ")");
  }
  zip_error_fini(&error);
  index_entries();
}

void NpzReader::index_entries() {
  const zip_int64_t count = zip_get_num_entries(archive_, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* name = zip_get_name(archive_, i, ZIP_FL_ENC_RAW);
    if (!name) continue;
    std::string key = name;
    if (key.size() > kSuffixBytes &&
        key.compare(key.size() - kSuffixBytes, kSuffixBytes, kSuffix) == 0) {
      key.resize(key.size() - kSuffixBytes);
    }
    index_.emplace(key, i);
  }
}

NpzReader::~NpzReader() {
  if (archive_) zip_discard(archive_);
}

std::vector<std::string> NpzReader::keys() const {
  std::vector<std::string> out;
  for (const auto& entry : index_) out.push_back(entry.first);
  return out;
}

bool NpzReader::has(const std::string& key) const { return index_.count(key) > 0; }

uint64_t NpzReader::declared_bytes() const {
  uint64_t total = 0;
  for (const auto& entry : index_) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive_, entry.second, 0, &stat) == 0 && (stat.valid & ZIP_STAT_SIZE))
      total = stat.size > UINT64_MAX - total ? UINT64_MAX : total + stat.size;  // saturates
  }
  return total;
}

NpyArray NpzReader::read(const std::string& key) const {
  const auto it = index_.find(key);
  if (it == index_.end()) throw Error(path_, key, "missing key");
  const std::string context = path_ + ": " + key;
  EntryReader entry(archive_, it->second, path_, key);
  bool fortran_order = false;
  NpyArray array = read_npy_header(entry, context, &fortran_order);
  const uint64_t data_bytes = static_cast<uint64_t>(array.size()) * dtype_size(array.dtype);
  const uint64_t header_bytes = entry.consumed() - array.data.size();
  if (entry.declared_size() - header_bytes != data_bytes) {
    throw Error(path_, key,
                "entry holds " + std::to_string(entry.declared_size() - header_bytes) +
                    " data bytes but shape " + shape_text(array.shape) + " of " +
                    dtype_name(array.dtype) + " needs " + std::to_string(data_bytes));
  }
  // Decompress straight into the array so a large entry is held only once.
  const size_t already = array.data.size();
  array.data.resize(data_bytes);
  entry.read_exactly(array.data.data() + already, data_bytes - already);
  entry.expect_end();
  if (fortran_order) fortran_to_c_order(array);
  return array;
}

NpyArray NpzReader::read_header(const std::string& key) const {
  const auto it = index_.find(key);
  if (it == index_.end()) throw Error(path_, key, "missing key");
  EntryReader entry(archive_, it->second, path_, key);
  bool fortran_order = false;
  NpyArray array = read_npy_header(entry, path_ + ": " + key, &fortran_order);
  array.data.clear();
  return array;
}

NpzWriter::NpzWriter(const std::string& path, bool compress) : path_(path), compress_(compress) {}

void NpzWriter::add(const std::string& key, const NpyArray& array) {
  entries_.emplace_back(key, serialize_npy(array));
}

void NpzWriter::commit() {
  if (entries_.empty()) {
    // libzip deletes an archive left with no entries; numpy writes the bare end-of-directory.
    write_file_atomically(path_, std::string("PK\x05\x06") + std::string(18, '\0'));
    return;
  }
  const std::string temp_path = path_ + ".tmp." + std::to_string(::getpid());
  int code = 0;
  zip_t* archive = zip_open(temp_path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!archive) throw Error(path_, "", "cannot create archive (" + libzip_message(code) + ")");
  auto fail = [&](const std::string& key, const std::string& what) {
    const std::string message = what + ": " + zip_strerror(archive);
    zip_discard(archive);
    std::remove(temp_path.c_str());
    throw Error(path_, key, message);
  };
  for (const auto& [key, image] : entries_) {
    // The buffers live in entries_ until zip_close has written them.
    zip_source_t* source = zip_source_buffer(archive, image.data(), image.size(), 0);
    if (!source) fail(key, "cannot add entry");
    const zip_int64_t index =
        zip_file_add(archive, (key + kSuffix).c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      fail(key, "cannot add entry");
    }
    // DEFLATE level 1: about 10x faster than libzip's default level 9 on layout configurations,
    // for files a few percent larger.
    if (zip_set_file_compression(archive, index, compress_ ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 compress_ ? 1 : 0) != 0) {
      fail(key, "cannot set compression");
    }
  }
  if (zip_close(archive) != 0) fail("", "cannot write archive");
  // zip_close does not fsync; do it so the rename never exposes an empty file after a crash.
  const int fd = ::open(temp_path.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const std::string message = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    std::remove(temp_path.c_str());
    throw Error(path_, "", "flush failed: " + message);
  }
  ::close(fd);
  if (std::rename(temp_path.c_str(), path_.c_str()) != 0) {
    const std::string message = std::strerror(errno);
    std::remove(temp_path.c_str());
    throw Error(path_, "", "rename failed: " + message);
  }
}

}  // namespace graphcost::io
