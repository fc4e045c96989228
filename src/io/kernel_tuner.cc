#include "io/kernel_tuner.h"

#include <zlib.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "data/device_table.h"

namespace graphcost::io {

namespace {

namespace fs = std::filesystem;
// The plain json type (a sorted map per object): ordered_json finds and inserts keys by linear
// search, so parsing an entry of n parameters cost n^2 (64k parameters: 6 s). The one order that
// matters, that of the configurations under "cache", is read by a second pass (parse_json).
using Json = nlohmann::json;

// Failed configurations get this multiple of the slowest successful runtime: finite, so records
// validate, and worse than anything that ran.
constexpr double kFailedRuntimeFactor = 10.0;

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// gzread also reads an uncompressed file as it is, so .json and .json.gz share this path.
std::string read_maybe_gzipped(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw Error(path, "", "cannot open");
  std::string text;
  std::vector<char> buffer(1 << 16);
  int n = 0;
  while ((n = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
    text.append(buffer.data(), n);
  }
  int code = Z_OK;
  std::string problem = n < 0 ? gzerror(file, &code) : "";
  // gzclose reports Z_BUF_ERROR when the data ended in the middle of a gzip stream.
  const int closed = gzclose(file);
  if (problem.empty() && closed == Z_BUF_ERROR) problem = "unexpected end of file";
  if (problem.empty() && closed != Z_OK) problem = "read error";
  if (!problem.empty())
    throw Error(path, "", "cannot decompress (truncated or corrupt gzip?): " + problem);
  return text;
}

// The keys of the top-level "cache" object in file order (each once), read by a SAX pass that
// builds nothing: a parse callback would do, but nlohmann's callback parser looks through the
// whole parent object for discarded values after every child object ends, which is quadratic in
// the cache's configurations (a dedispersion cache, 11,130 of them: 75% of its read).
class CacheOrder : public nlohmann::json_sax<Json> {
 public:
  explicit CacheOrder(std::vector<std::string>* order) : order_(order) {}
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool key(string_t& key) override {
    if (depth_ == 1) in_cache_ = key == "cache";
    if (depth_ == 2 && in_cache_ && seen_.insert(key).second) order_->push_back(key);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // the DOM parse has reported it already
  }

 private:
  std::vector<std::string>* order_;
  std::unordered_set<std::string> seen_;
  int depth_ = 0;
  bool in_cache_ = false;
};

// Parses text; with cache_order, also records the keys of the top-level "cache" object in file
// order (each once).
Json parse_json(const std::string& text, const std::string& where, const std::string& key,
                std::vector<std::string>* cache_order = nullptr) {
  Json parsed;
  try {
    parsed = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw Error(where, key, "invalid JSON: " + one_line(e.what()));
  } catch (const Json::exception& e) {
    // Not a syntax error, yet not readable: a number out of double's range (1e309) and the like.
    throw Error(where, key, "unreadable JSON: " + one_line(e.what()));
  }
  if (cache_order != nullptr) {
    CacheOrder order(cache_order);
    Json::sax_parse(text, &order);
  }
  return parsed;
}

// space.json keeps value lists as Python literals ("[16, 32]", "['a', 'b']", "[True, None]").
std::string python_literal_to_json(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      out += '"';
      for (++i; i < s.size() && s[i] != c; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          if (s[i + 1] != '\'') out += '\\';
          out += s[++i];
        } else {
          out += s[i] == '"' ? "\\\"" : std::string(1, s[i]);
        }
      }
      out += '"';
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      const std::string word = s.substr(i, j - i);
      out += word == "True" ? "true" : word == "False" ? "false" : word == "None" ? "null" : word;
      i = j;
    } else {
      out += c == '(' ? '[' : c == ')' ? ']' : c;
      ++i;
    }
  }
  return out;
}

// A value's identity for the union of a parameter's values: numbers by their double value (so
// 1 and 1.0 are one value, as Json's == has it), anything else by its JSON text.
std::string value_key(const Json& v) {
  if (!v.is_number()) return v.dump();
  char text[32];
  std::snprintf(text, sizeof text, "#%.17g", v.get<double>());
  return text;
}

struct Parameter {
  std::string name;
  std::vector<Json> values;  // union over every source, in order of first appearance
  std::unordered_map<std::string, int64_t> value_index;  // value_key -> position in values
  Json default_value;        // null when none is known
  bool numeric = false;      // every value a number (booleans and strings are not)
  bool log2 = false;         // numeric and every value a positive integer power of two
  int64_t column = 0;        // first configuration column
};

struct Space {
  std::vector<Parameter> parameters;
  std::unordered_map<std::string, size_t> position;  // parameter name -> index in parameters
  std::string defined_by;  // the file that fixed the parameter order
  bool has_defaults = false;
};

// What the encoder needs from one cache, so the large document can be freed early.
struct Cache {
  std::string path;
  std::string kernel;
  std::string device;
  bool device_named = false;  // device_name was given (in the cache or by --device-name)
  std::vector<double> problem_size;
  int64_t count = 0;
  std::vector<Json> values;   // count x parameters, in the space's parameter order
  std::vector<double> times;  // NaN where the measurement failed
};

// Hash lookups throughout: a cache may have tens of thousands of parameters and configurations,
// and a linear search per key or value made reading quadratic (64k parameters took 43 s).
void add_value(Parameter& p, const Json& v) {
  if (p.value_index.emplace(value_key(v), static_cast<int64_t>(p.values.size())).second)
    p.values.push_back(v);
}

int64_t value_position(const Parameter& p, const Json& v) {
  const auto it = p.value_index.find(value_key(v));
  assert(it != p.value_index.end());
  return it->second;
}

Space read_space(const std::string& path) {
  std::string text = read_maybe_gzipped(path);
  Json doc = parse_json(text, path, "");
  const std::string key = "ConfigurationSpace.TuningParameters";
  check_data(doc.is_object() && doc.contains("ConfigurationSpace") &&
                 doc["ConfigurationSpace"].is_object() &&
                 doc["ConfigurationSpace"].contains("TuningParameters") &&
                 doc["ConfigurationSpace"]["TuningParameters"].is_array(),
             path, key, "missing or not a list");
  Space space;
  space.defined_by = path;
  space.has_defaults = true;
  for (const Json& entry : doc["ConfigurationSpace"]["TuningParameters"]) {
    check_data(entry.is_object() && entry.contains("Name") && entry["Name"].is_string(), path, key,
               "an entry has no Name");
    Parameter p;
    p.name = entry["Name"].get<std::string>();
    const std::string where = key + "." + p.name + ".Values";
    check_data(entry.contains("Values"), path, where, "missing");
    Json values =
        entry["Values"].is_string()
            ? parse_json(python_literal_to_json(entry["Values"].get<std::string>()), path, where)
            : entry["Values"];
    check_data(values.is_array(), path, where, "not a list");
    for (const Json& v : values) add_value(p, v);
    if (entry.contains("Default")) {
      p.default_value = entry["Default"];
    } else {
      space.has_defaults = false;
    }
    check_data(space.position.emplace(p.name, space.parameters.size()).second, path, key,
               "names '" + p.name + "' twice");
    space.parameters.push_back(std::move(p));
  }
  return space;
}


std::string cache_key(const std::string& entry, const std::string& field) {
  return "cache[\"" + entry + "\"]." + field;
}

Cache read_cache(const std::string& path, Space& space, const std::string& device_name) {
  Cache cache;
  cache.path = path;
  Json doc;
  std::vector<std::string> order;  // the configurations' keys in file order
  {
    std::string text = read_maybe_gzipped(path);
    doc = parse_json(text, path, "", &order);
  }
  check_data(doc.is_object(), path, "", "not a JSON object");
  check_data(doc.contains("tune_params_keys") && doc["tune_params_keys"].is_array(), path,
             "tune_params_keys", "missing or not a list");
  check_data(doc.contains("cache") && doc["cache"].is_object(), path, "cache",
             "missing or not an object");
  std::vector<std::string> keys;
  std::unordered_set<std::string> listed;
  for (const Json& k : doc["tune_params_keys"]) {
    check_data(k.is_string(), path, "tune_params_keys", "holds a non-string");
    keys.push_back(k.get<std::string>());
    check_data(listed.insert(keys.back()).second, path, "tune_params_keys",
               "lists '" + keys.back() + "' twice");
  }
  if (space.parameters.empty()) {
    space.defined_by = path;
    for (const std::string& k : keys) {
      Parameter p;
      p.name = k;
      space.position.emplace(k, space.parameters.size());
      space.parameters.push_back(std::move(p));
    }
  }
  for (const std::string& k : keys) {
    check_data(space.position.count(k) > 0, path, "tune_params_keys",
               "lists '" + k + "', which " + space.defined_by + " does not define");
  }
  for (const Parameter& p : space.parameters) {
    check_data(listed.count(p.name) > 0, path, "tune_params_keys",
               "lacks '" + p.name + "', which " + space.defined_by + " defines");
  }
  if (doc.contains("tune_params")) {
    const Json& tune = doc["tune_params"];
    check_data(tune.is_object(), path, "tune_params", "not an object");
    for (Parameter& p : space.parameters) {
      if (!tune.contains(p.name)) continue;
      check_data(tune[p.name].is_array(), path, "tune_params." + p.name, "not a list");
      for (const Json& v : tune[p.name]) add_value(p, v);
    }
  }
  cache.kernel = doc.contains("kernel_name") && doc["kernel_name"].is_string()
                     ? doc["kernel_name"].get<std::string>()
                     : fs::path(path).parent_path().filename().string();
  const bool has_device = doc.contains("device_name") && doc["device_name"].is_string();
  cache.device = has_device ? doc["device_name"].get<std::string>() : std::string();
  if (cache.device.empty() && !device_name.empty()) {
    cache.device = device_name;  // --device-name names a cache that does not say its device
  } else if (!has_device) {
    cache.device = fs::path(path).stem().stem().string();
  }
  cache.device_named = !cache.device.empty();
  if (doc.contains("problem_size")) {
    Json size = doc["problem_size"];
    if (size.is_number()) size = Json::array({size});
    check_data(size.is_array(), path, "problem_size", "expected a number or a list of numbers");
    for (const Json& v : size) {
      check_data(v.is_number(), path, "problem_size", "expected a number or a list of numbers");
      cache.problem_size.push_back(v.get<double>());
    }
  }
  const size_t parameters = space.parameters.size();
  std::vector<const Json*> row(parameters);
  const Json& entries = doc["cache"];
  for (const std::string& entry_key : order) {
    const Json& entry = entries.at(entry_key);
    check_data(entry.is_object(), path, "cache[\"" + entry_key + "\"]", "not an object");
    // One pass over the entry's fields (an ordered_json object finds a key by linear search).
    std::fill(row.begin(), row.end(), nullptr);
    const Json* time = nullptr;
    for (const auto& [field, value] : entry.items()) {
      if (field == "time") time = &value;
      const auto at = space.position.find(field);
      if (at != space.position.end()) row[at->second] = &value;
    }
    for (size_t k = 0; k < parameters; ++k) {
      Parameter& p = space.parameters[k];
      check_data(row[k] != nullptr, path, cache_key(entry_key, p.name), "missing");
      add_value(p, *row[k]);
      cache.values.push_back(*row[k]);
    }
    check_data(time != nullptr, path, cache_key(entry_key, "time"), "missing");
    const double t = time->is_number() ? time->get<double>() : std::nan("");
    cache.times.push_back(std::isfinite(t) && t > 0 ? t : std::nan(""));
  }
  cache.count = static_cast<int64_t>(cache.times.size());
  check_data(cache.count > 0, path, "cache", "holds no configurations");
  assert(cache.values.size() == static_cast<size_t>(cache.count) * space.parameters.size());
  return cache;
}

bool is_positive_power_of_two(const Json& v) {
  const double x = v.get<double>();
  if (!(x >= 1 && x <= 9.007199254740992e15) || x != std::floor(x)) return false;
  const uint64_t n = static_cast<uint64_t>(x);
  return (n & (n - 1)) == 0;
}

// Fixes each parameter's encoding and columns once every value is known.
int64_t lay_out_columns(Space& space) {
  int64_t column = 0;
  for (Parameter& p : space.parameters) {
    p.numeric =
        std::all_of(p.values.begin(), p.values.end(), [](const Json& v) { return v.is_number(); });
    p.log2 = p.numeric && std::all_of(p.values.begin(), p.values.end(), is_positive_power_of_two);
    p.column = column;
    column += p.numeric ? 1 : static_cast<int64_t>(p.values.size());
  }
  return column;
}

std::string graph_name(const Cache& cache) {
  std::string name = cache.kernel + "_" + cache.device;
  for (char& c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  }
  return name;
}

// The device's columns from the table; an unknown (or unnamed) device gets the neutral ones and
// one warning line naming it and the file.
std::vector<float> device_columns_of(const Cache& cache, const data::DeviceTable& table) {
  if (const data::DeviceProperties* d = cache.device_named ? table.find(cache.device) : nullptr)
    return data::device_columns(*d);
  if (cache.device_named) {
    std::fprintf(stderr,
                 "graphcost: warning: %s: device '%s' is not in the device table; its device "
                 "columns are the built-in table's medians (add it with --devices FILE)\n",
                 cache.path.c_str(), cache.device.c_str());
  } else {
    std::fprintf(stderr,
                 "graphcost: warning: %s: device_name is empty; its device columns are the "
                 "built-in table's medians (name the device with --device-name NAME)\n",
                 cache.path.c_str());
  }
  return data::neutral_device_columns();
}

data::GraphRecord encode(const Cache& cache, const Space& space, int64_t width,
                         const std::vector<float>& device) {
  data::GraphRecord record;
  record.source = cache.path;
  data::Graph& g = record.graph;
  g.name = graph_name(cache);
  g.num_nodes = 1;
  g.feature_width = static_cast<int64_t>(device.size() + cache.problem_size.size());
  g.opcodes = {0};
  g.node_features = device;
  for (const double v : cache.problem_size)
    g.node_features.push_back(static_cast<float>(v >= 1 ? std::log2(v) : 0.0));
  g.build_adjacency();

  data::ConfigTable& t = record.configs;
  t.kind = data::ConfigKind::Tile;
  t.count = cache.count;
  t.width = width;
  t.tile.assign(t.count * width, 0.0f);
  const size_t parameters = space.parameters.size();
  for (int64_t j = 0; j < t.count; ++j) {
    float* row = &t.tile[j * width];
    for (size_t k = 0; k < parameters; ++k) {
      const Parameter& p = space.parameters[k];
      const Json& v = cache.values[j * parameters + k];
      if (p.numeric) {
        row[p.column] = static_cast<float>(p.log2 ? std::log2(v.get<double>()) : v.get<double>());
      } else {
        row[p.column + value_position(p, v)] = 1.0f;
      }
    }
  }
  double slowest = 0;
  for (double time : cache.times) {
    if (!std::isnan(time)) slowest = std::max(slowest, time);
  }
  check_data(slowest > 0, cache.path, "cache", "no configuration has a positive numeric time");
  t.runtimes.resize(t.count);
  bool any_failed = false;
  for (int64_t j = 0; j < t.count; ++j) {
    const bool failed = std::isnan(cache.times[j]);
    any_failed |= failed;
    t.runtimes[j] = failed ? kFailedRuntimeFactor * slowest : cache.times[j];
  }
  if (any_failed) {
    t.failed.resize(t.count);
    for (int64_t j = 0; j < t.count; ++j) t.failed[j] = std::isnan(cache.times[j]) ? 1 : 0;
  }
  if (space.has_defaults) {
    for (int64_t j = 0; j < t.count && t.default_config < 0; ++j) {
      bool same = true;
      for (size_t k = 0; k < parameters && same; ++k) {
        same = cache.values[j * parameters + k] == space.parameters[k].default_value;
      }
      if (same) t.default_config = j;
    }
  }
  return record;
}

std::vector<data::GraphRecord> read_caches(const std::vector<std::string>& files,
                                           const std::string& space_path,
                                           const data::LoadOptions& options,
                                           std::vector<KernelTunerParameter>* layout = nullptr) {
  const data::DeviceTable table = data::DeviceTable::with_file(options.devices);
  Space space;
  if (fs::is_regular_file(space_path)) space = read_space(space_path);
  std::vector<Cache> caches;
  for (const std::string& f : files) caches.push_back(read_cache(f, space, options.device_name));
  const int64_t width = lay_out_columns(space);
  for (const Cache& c : caches) {
    check_data(c.problem_size.size() == caches.front().problem_size.size(), c.path, "problem_size",
               "has " + std::to_string(c.problem_size.size()) + " values, but " +
                   caches.front().path + " has " +
                   std::to_string(caches.front().problem_size.size()));
  }
  std::vector<data::GraphRecord> records;
  for (const Cache& c : caches) records.push_back(encode(c, space, width, device_columns_of(c, table)));
  if (layout != nullptr) {
    layout->clear();
    for (const Parameter& p : space.parameters) {
      KernelTunerParameter out;
      out.name = p.name;
      out.column = p.column;
      out.one_hot = !p.numeric;
      for (const Json& v : p.values) {
        out.values.push_back(v.dump());
        if (p.numeric) out.encoded.push_back(p.log2 ? std::log2(v.get<double>()) : v.get<double>());
      }
      layout->push_back(std::move(out));
    }
  }
  return records;
}

}  // namespace

bool is_kernel_tuner_cache(const std::string& path) {
  const fs::path p(path);
  const std::string name = p.filename().string();
  auto ends_with = [&name](const std::string& suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  std::error_code error;
  if (!fs::is_regular_file(p, error)) return false;
  return ends_with(".json.gz") || (ends_with(".json") && name != "space.json");
}

bool is_kernel_tuner_folder(const std::string& path) {
  std::error_code error;
  if (!fs::is_directory(path, error)) return false;
  for (const auto& entry : fs::directory_iterator(path, error)) {
    if (is_kernel_tuner_cache(entry.path().string())) return true;
  }
  return false;
}

data::GraphRecord read_kernel_tuner_cache(const std::string& path,
                                          const data::LoadOptions& options) {
  check_data(fs::is_regular_file(path), path, "", "no such file");
  return read_caches({path}, (fs::path(path).parent_path() / "space.json").string(), options)
      .front();
}

std::vector<data::GraphRecord> read_kernel_tuner_folder(const std::string& dir,
                                                        const data::LoadOptions& options) {
  check_data(fs::is_directory(dir), dir, "", "no such folder");
  return read_kernel_tuner_source(dir, nullptr, options);
}

std::vector<data::GraphRecord> read_kernel_tuner_source(const std::string& path,
                                                        std::vector<KernelTunerParameter>* layout,
                                                        const data::LoadOptions& options) {
  if (!fs::is_directory(path)) {
    check_data(fs::is_regular_file(path), path, "", "no such file");
    return read_caches({path}, (fs::path(path).parent_path() / "space.json").string(), options,
                       layout);
  }
  const std::string& dir = path;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (is_kernel_tuner_cache(entry.path().string())) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  check_data(!files.empty(), dir, "", "no Kernel Tuner caches (*.json.gz or *.json)");
  return read_caches(files, (fs::path(dir) / "space.json").string(), options, layout);
}

}  // namespace graphcost::io
