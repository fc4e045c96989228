// The client side of the JSON encoding (serve/rank_request.h): a TpuGraphs .npz as the JSON
// object a rank request takes. Header-only and plain C++ (io only), for clients, tests and the
// load benchmark.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/npz.h"

namespace graphcost::serve {

// values (C order) nested by shape[axis:], consuming values from next.
template <typename T>
nlohmann::json nest_by_shape(const std::vector<T>& values, const std::vector<int64_t>& shape,
                             size_t axis, size_t& next) {
  nlohmann::json out = nlohmann::json::array();
  for (int64_t i = 0; i < shape[axis]; ++i) {
    if (axis + 1 == shape.size()) {
      out.push_back(values[next++]);
    } else {
      out.push_back(nest_by_shape(values, shape, axis + 1, next));
    }
  }
  return out;
}

// Every array of the file as nested JSON arrays: floats as the doubles they widen to exactly
// (so the service reads back the same float32 values), integers as integers.
inline nlohmann::json npz_as_json_request(const std::string& path) {
  const io::NpzReader npz(path);
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& key : npz.keys()) {
    const io::NpyArray array = npz.read(key);
    size_t next = 0;
    if (array.shape.empty()) continue;  // no TpuGraphs key is a scalar
    out[key] = io::dtype_is_float(array.dtype)
                   ? nest_by_shape(array.to_vector<double>(key), array.shape, 0, next)
                   : nest_by_shape(array.to_vector<int64_t>(key), array.shape, 0, next);
  }
  return out;
}

}  // namespace graphcost::serve
