#include "serve/rank_request.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "core/error.h"
#include "io/npz.h"
#include "io/tpugraphs_npz.h"
#include "serve/http_error.h"

namespace graphcost::serve {

namespace {

using nlohmann::json;

// What errors call the request's arrays, as a reader calls a file.
const char kRequestName[] = "request";
// The deepest TpuGraphs array is node_config_feat [c, nc, width].
constexpr size_t kMaxRank = 3;
constexpr size_t kMaxNameBytes = 256;

const std::set<std::string>& array_keys() {
  static const std::set<std::string> keys = {
      "node_feat",       "node_opcode", "edge_index",     "config_feat",
      "node_config_ids", "node_config_feat", "node_splits", "config_runtime",
      "config_runtime_normalizers"};
  return keys;
}

std::string valid_fields() {
  std::string text = "name, mc_samples, seed";
  for (const std::string& key : array_keys()) text += ", " + key;
  return text;
}

// Leaves of a nested array in C order, after checking that every sub-array has the length the
// first one at its depth has (the shape).
void collect_leaves(const std::string& key, const json& value, const std::vector<int64_t>& shape,
                    size_t depth, std::vector<const json*>& leaves) {
  if (!value.is_array() || static_cast<int64_t>(value.size()) != shape[depth]) {
    throw HttpError(kBadRequest, std::string(kRequestName) + ": " + key +
                                     ": ragged array: expected " + std::to_string(shape[depth]) +
                                     " elements at depth " + std::to_string(depth) + ", got " +
                                     (value.is_array() ? std::to_string(value.size())
                                                       : std::string("a ") + value.type_name()));
  }
  for (const json& element : value) {
    if (depth + 1 < shape.size()) {
      collect_leaves(key, element, shape, depth + 1, leaves);
    } else if (!element.is_number()) {
      throw HttpError(kBadRequest, std::string(kRequestName) + ": " + key + ": element is a " +
                                       element.type_name() + ", expected a number");
    } else {
      leaves.push_back(&element);
    }
  }
}

// A JSON array of numbers as an .npy array: int64 when every number is an integer, float64
// otherwise. The record reader then checks dtype and shape as it does a file's.
io::NpyArray json_to_array(const std::string& key, const json& value) {
  const std::string where = std::string(kRequestName) + ": " + key;
  if (!value.is_array())
    throw HttpError(kBadRequest, where + ": expected an array, got a " + value.type_name());
  if (key == "edge_index" && value.empty()) {
    io::NpyArray none;  // a graph without edges: JSON cannot say (0, 2)
    none.dtype = io::DType::Int64;
    none.shape = {0, 2};
    return none;
  }
  std::vector<int64_t> shape;
  for (const json* level = &value; level->is_array(); level = &(*level)[0]) {
    if (shape.size() == kMaxRank)
      throw HttpError(kBadRequest, where + ": more than " + std::to_string(kMaxRank) +
                                       " dimensions (no TpuGraphs array has more)");
    shape.push_back(static_cast<int64_t>(level->size()));
    if (level->empty()) break;
  }
  std::vector<const json*> leaves;
  collect_leaves(key, value, shape, 0, leaves);
  bool integers = true;
  for (const json* leaf : leaves) integers = integers && leaf->is_number_integer();
  if (integers) {
    std::vector<int64_t> values;
    values.reserve(leaves.size());
    for (const json* leaf : leaves) {
      if (leaf->is_number_unsigned() &&
          leaf->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw HttpError(kBadRequest, where + ": integer " + leaf->dump() + " out of int64 range");
      values.push_back(leaf->get<int64_t>());
    }
    return io::make_array(values, shape);
  }
  std::vector<double> values;
  values.reserve(leaves.size());
  for (const json* leaf : leaves) values.push_back(leaf->get<double>());
  return io::make_array(values, shape);
}

// Reads the record from the arrays and applies the request-wide limits.
data::GraphRecord read_record(const io::ArrayArchive& arrays, const RequestLimits& limits) {
  data::GraphRecord record;
  try {
    record = io::read_tpugraphs_record(arrays);
  } catch (const Error& e) {
    throw HttpError(kBadRequest, e.what());
  }
  auto check_limit = [](int64_t count, int64_t limit, const char* what, const char* flag) {
    if (count > limit)
      throw HttpError(kPayloadTooLarge, std::string(kRequestName) + ": " + std::to_string(count) +
                                            " " + what + ", more than " + flag + " " +
                                            std::to_string(limit));
  };
  check_limit(record.graph.num_nodes, limits.max_nodes, "nodes", "--max-nodes");
  check_limit(record.graph.num_edges(), limits.max_edges, "edges", "--max-edges");
  check_limit(record.configs.count, limits.max_configs, "configurations", "--max-configs");
  if (record.configs.count == 0)
    throw HttpError(kBadRequest, std::string(kRequestName) + ": no configurations to rank");
  return record;
}

int64_t mc_samples_within(int64_t value, const RequestLimits& limits) {
  if (value < 0 || value > limits.max_mc_samples)
    throw HttpError(kBadRequest, "mc_samples: must be in [0, " +
                                     std::to_string(limits.max_mc_samples) + "], got " +
                                     std::to_string(value));
  return value;
}

std::string checked_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameBytes)
    throw HttpError(kBadRequest, "name: must be 1 to " + std::to_string(kMaxNameBytes) + " bytes");
  return name;
}

// A query parameter's integer, all of its text.
template <typename T>
T query_integer(const std::map<std::string, std::string>& query, const std::string& key,
                T fallback) {
  const auto it = query.find(key);
  if (it == query.end()) return fallback;
  const std::string& text = it->second;
  errno = 0;
  char* end = nullptr;
  const bool is_signed = std::numeric_limits<T>::is_signed;
  const long long value = is_signed ? std::strtoll(text.c_str(), &end, 10) : 0;
  const unsigned long long unsigned_value = is_signed ? 0 : std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE ||
      (!is_signed && text.find('-') != std::string::npos))
    throw HttpError(kBadRequest, key + ": expected " +
                                     (is_signed ? "an integer" : "a non-negative integer") +
                                     ", got '" + text + "'");
  return is_signed ? static_cast<T>(value) : static_cast<T>(unsigned_value);
}

// nlohmann's message without its "[json.exception...] " prefix.
std::string json_message(const json::exception& e) {
  const std::string text = e.what();
  const size_t end = text.find("] ");
  return end == std::string::npos ? text : text.substr(end + 2);
}

// The body as JSON, strictly: a key repeated in one object is an error (nlohmann would keep
// the last one, so a typo-free duplicate would be silently ignored), and so is a number beyond
// double's range (1e999), which nlohmann reports as out_of_range rather than a parse error.
json parse_strict_json(const std::string& body) {
  std::vector<std::set<std::string>> open_objects;
  const json::parser_callback_t refuse_duplicates = [&](int, json::parse_event_t event,
                                                        json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      open_objects.pop_back();
    } else if (event == json::parse_event_t::key &&
               !open_objects.back().insert(parsed.get<std::string>()).second) {
      throw HttpError(kBadRequest, "field '" + parsed.get<std::string>().substr(0, 100) +
                                       "' given twice");
    }
    return true;
  };
  try {
    return json::parse(body, refuse_duplicates);
  } catch (const json::parse_error& e) {
    throw HttpError(kBadRequest, "malformed JSON at byte " + std::to_string(e.byte) + ": " +
                                     json_message(e));
  } catch (const json::exception& e) {
    throw HttpError(kBadRequest, "malformed JSON: " + json_message(e));
  }
}

}  // namespace

RankRequest parse_json_rank_request(const std::string& body, const RequestLimits& limits) {
  const json document = parse_strict_json(body);
  if (!document.is_object())
    throw HttpError(kBadRequest, std::string("expected a JSON object, got a ") + document.type_name());
  RankRequest request;
  std::string name = "graph";
  io::ArrayMap arrays(kRequestName);
  for (const auto& [field, value] : document.items()) {
    if (array_keys().count(field)) {
      arrays.add(field, json_to_array(field, value));
    } else if (field == "name") {
      if (!value.is_string())
        throw HttpError(kBadRequest, std::string("name: expected a string, got a ") + value.type_name());
      name = checked_name(value.get<std::string>());
    } else if (field == "mc_samples") {
      if (!value.is_number_integer())
        throw HttpError(kBadRequest,
                        std::string("mc_samples: expected an integer, got a ") + value.type_name());
      const bool beyond_int64 =
          value.is_number_unsigned() &&
          value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      request.options.mc_samples = mc_samples_within(
          beyond_int64 ? std::numeric_limits<int64_t>::max() : value.get<int64_t>(), limits);
    } else if (field == "seed") {
      if (!value.is_number_unsigned())
        throw HttpError(kBadRequest,
                        std::string("seed: expected a non-negative integer, got ") + value.dump());
      request.options.seed = value.get<uint64_t>();
    } else {
      throw HttpError(kBadRequest, "unknown field '" + field + "' (valid: " + valid_fields() + ")");
    }
  }
  request.record = read_record(arrays, limits);
  request.record.graph.name = name;
  return request;
}

RankRequest parse_npz_rank_request(const std::string& body,
                                   const std::map<std::string, std::string>& query,
                                   const RequestLimits& limits) {
  for (const auto& entry : query) {
    if (entry.first != "name" && entry.first != "mc_samples" && entry.first != "seed")
      throw HttpError(kBadRequest, "unknown query parameter '" + entry.first +
                                       "' (valid: name, mc_samples, seed)");
  }
  RankRequest request;
  request.options.mc_samples =
      mc_samples_within(query_integer<int64_t>(query, "mc_samples", 0), limits);
  request.options.seed = query_integer<uint64_t>(query, "seed", 0);
  const auto name = query.find("name");
  const std::string path = std::string(kRequestName) + ".npz";
  try {
    const io::NpzReader npz(path, body.data(), body.size());
    // Decompression is what costs memory: refuse a small body that declares a huge archive.
    const uint64_t declared = npz.declared_bytes();
    if (declared > limits.max_array_bytes)
      throw HttpError(kPayloadTooLarge, path + ": declares " + std::to_string(declared) +
                                            " uncompressed bytes, more than the limit of " +
                                            std::to_string(limits.max_array_bytes));
    request.record = read_record(npz, limits);
  } catch (const Error& e) {
    throw HttpError(kBadRequest, e.what());
  }
  request.record.graph.name = name == query.end() ? "graph" : checked_name(name->second);
  return request;
}

}  // namespace graphcost::serve
