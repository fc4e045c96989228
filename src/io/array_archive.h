// A named set of NumPy arrays, however stored: an .npz archive on disk or in memory (io/npz.h),
// or arrays built in memory (ArrayMap). The TpuGraphs record reader (io/tpugraphs_npz.h) reads
// through this interface, so every source of a graph passes the same checks.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "io/npy.h"

namespace graphcost::io {

class ArrayArchive {
 public:
  virtual ~ArrayArchive() = default;
  // What errors name as the file ("graph.npz", or "request" for a network request).
  virtual const std::string& path() const = 0;
  virtual bool has(const std::string& key) const = 0;
  // Dtype and shape only (data left empty); a missing key is an Error "<path>: <key>: ...".
  virtual NpyArray read_header(const std::string& key) const = 0;
  // The whole array; a missing key is an Error "<path>: <key>: missing key".
  virtual NpyArray read(const std::string& key) const = 0;
};

// Arrays already in memory, keyed by name.
class ArrayMap : public ArrayArchive {
 public:
  explicit ArrayMap(std::string path) : path_(std::move(path)) {}
  void add(const std::string& key, NpyArray array) { arrays_[key] = std::move(array); }

  const std::string& path() const override { return path_; }
  bool has(const std::string& key) const override { return arrays_.count(key) > 0; }
  NpyArray read_header(const std::string& key) const override {
    NpyArray header = at(key);
    header.data.clear();
    return header;
  }
  NpyArray read(const std::string& key) const override { return at(key); }

 private:
  const NpyArray& at(const std::string& key) const {
    const auto it = arrays_.find(key);
    if (it == arrays_.end()) throw Error(path_, key, "missing key");
    return it->second;
  }

  std::string path_;
  std::map<std::string, NpyArray> arrays_;
};

}  // namespace graphcost::io
