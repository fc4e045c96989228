#include "tune/search_space.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <numeric>

#include "core/error.h"
#include "io/collection_readers.h"

namespace graphcost::tune {

namespace {

std::string format_value(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

// JSON text of a value as a command line wants it: strings without their quotes.
std::string unquote(const std::string& json_text) {
  if (json_text.size() >= 2 && json_text.front() == '"' && json_text.back() == '"')
    return json_text.substr(1, json_text.size() - 2);
  return json_text;
}

// A numeric parameter over one column: levels sorted by their column value.
struct NumericColumn {
  int64_t column = 0;
  std::vector<double> encoded;  // ascending
};

int32_t nearest_level(const std::vector<double>& encoded, double x) {
  int32_t best = 0;
  for (size_t k = 1; k < encoded.size(); ++k) {
    if (std::abs(encoded[k] - x) < std::abs(encoded[best] - x)) best = static_cast<int32_t>(k);
  }
  return best;
}

}  // namespace

double SearchSpace::optimum() const {
  double best = std::numeric_limits<double>::quiet_NaN();
  if (!has_runtimes()) return best;
  for (int64_t j = 0; j < count; ++j) {
    if (failed[j]) continue;
    if (std::isnan(best) || runtimes[j] < best) best = runtimes[j];
  }
  return best;
}

std::vector<std::string> SearchSpace::values(int64_t j) const {
  std::vector<std::string> out;
  const int32_t* l = config_levels(j);
  for (int64_t p = 0; p < parameter_count(); ++p) out.push_back(parameters[p].labels[l[p]]);
  return out;
}

std::string SearchSpace::assignment(int64_t j) const {
  std::string out;
  const std::vector<std::string> v = values(j);
  for (int64_t p = 0; p < parameter_count(); ++p) {
    if (p > 0) out += ' ';
    out += parameters[p].name + "=" + v[p];
  }
  return out;
}

SearchSpace make_search_space(const std::string& name, const data::ConfigView& configs,
                              const std::vector<io::KernelTunerParameter>& layout) {
  check_data(configs.kind == data::ConfigKind::Tile, name, "configs",
             "tuning needs graph-level (tile) configurations, not layout ones");
  check_data(configs.count > 0, name, "configs", "no configurations to search");
  SearchSpace space;
  space.name = name;
  space.count = configs.count;
  // Each parameter's decoding: numeric columns map a value to its nearest level; one-hot ones
  // take the hot column.
  std::vector<NumericColumn> numeric;
  std::vector<int64_t> one_hot_column;
  auto add_numeric = [&](const std::string& pname, int64_t column, std::vector<double> encoded,
                         std::vector<std::string> labels) {
    std::vector<size_t> order(encoded.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return encoded[a] < encoded[b]; });
    TuneParameter p{pname, {}, true};
    NumericColumn c{column, {}};
    for (size_t k : order) {
      p.labels.push_back(labels[k]);
      c.encoded.push_back(encoded[k]);
    }
    space.parameters.push_back(std::move(p));
    numeric.push_back(std::move(c));
    one_hot_column.push_back(-1);
  };
  if (layout.empty()) {
    for (int64_t c = 0; c < configs.width; ++c) {
      std::vector<double> distinct;
      for (int64_t j = 0; j < configs.count; ++j) distinct.push_back(configs.tile_config(j)[c]);
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      std::vector<std::string> labels;
      for (double v : distinct) labels.push_back(format_value(v));
      add_numeric("c" + std::to_string(c), c, distinct, labels);
    }
  } else {
    for (const io::KernelTunerParameter& kp : layout) {
      std::vector<std::string> labels;
      for (const std::string& v : kp.values) labels.push_back(unquote(v));
      if (kp.one_hot) {
        space.parameters.push_back({kp.name, labels, false});
        numeric.push_back({});
        one_hot_column.push_back(kp.column);
      } else {
        add_numeric(kp.name, kp.column, kp.encoded, labels);
      }
    }
  }
  const int64_t parameters = space.parameter_count();
  space.levels.resize(configs.count * parameters);
  for (int64_t j = 0; j < configs.count; ++j) {
    const float* row = configs.tile_config(j);
    for (int64_t p = 0; p < parameters; ++p) {
      int32_t level = 0;
      if (one_hot_column[p] >= 0) {
        const int64_t size = static_cast<int64_t>(space.parameters[p].labels.size());
        const float* hot = row + one_hot_column[p];
        level = static_cast<int32_t>(std::max_element(hot, hot + size) - hot);
      } else {
        level = nearest_level(numeric[p].encoded, row[numeric[p].column]);
      }
      space.levels[j * parameters + p] = level;
    }
  }
  space.failed.assign(configs.count, 0);
  if (configs.failed != nullptr) space.failed.assign(configs.failed, configs.failed + configs.count);
  if (configs.has_runtimes()) space.runtimes.assign(configs.runtimes, configs.runtimes + configs.count);
  return space;
}

TuneRecords open_tune_source(const std::string& path, const std::string& split,
                             const data::LoadOptions& devices) {
  TuneRecords records;
  // As open_collection decides: a dataset root holding synth's report is not a Kernel Tuner folder.
  const bool kernel_tuner = io::is_kernel_tuner_source(path, split);
  if (kernel_tuner) {
    std::vector<data::GraphRecord> graphs = io::read_kernel_tuner_source(path, &records.layout, devices);
    records.collection = std::make_unique<data::MemoryCollection>(
        data::CollectionId::parse("tile:xla"), split, std::move(graphs));
  } else {
    data::LoadOptions load;
    load.kind_from_data = true;
    load.devices = devices.devices;
    load.device_name = devices.device_name;
    records.collection =
        io::open_collection(path, data::CollectionId::parse("tile:xla"), split, load);
  }
  check_data(records.collection->size() > 0, path, "", "no graphs to tune");
  return records;
}

TuneRecords open_tune_records(const std::string& path, const std::string& split,
                              const std::string& graph, const std::string& device,
                              const data::LoadOptions& load) {
  TuneRecords records = open_tune_source(path, split, load);
  const data::Collection& c = *records.collection;
  std::vector<int64_t> matches;
  std::string names;
  for (int64_t g = 0; g < c.size(); ++g) {
    const std::string& n = c.graph(g).name;
    if (g < 12) names += (g > 0 ? ", " : "") + n;
    if (g == 12) names += ", ...";
    const bool by_graph = graph.empty() || n == graph;
    const bool by_device = device.empty() || n.find(device) != std::string::npos;
    if (by_graph && by_device) matches.push_back(g);
  }
  if (c.size() == 1 && graph.empty() && device.empty()) matches = {0};
  const std::string key = !graph.empty() ? "--graph" : "--device";
  check_data(!matches.empty(), path, key,
             (graph.empty() && device.empty() ? std::string("several graphs; pick one")
                                              : std::string("no graph matches")) +
                 " (graphs: " + names + ")");
  check_data(matches.size() == 1, path, key,
             "matches " + std::to_string(matches.size()) + " graphs (graphs: " + names + ")");
  records.target = matches.front();
  return records;
}

}  // namespace graphcost::tune
