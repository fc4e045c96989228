#include "io/tpugraphs_npz.h"

#include <cstdio>
#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "io/npz.h"

namespace graphcost::io {

namespace {

constexpr int kAnyRank = -1;

// A value for a message, whatever it is: casting a NaN or huge double to an integer to print
// it is undefined behaviour, so it is printed as a double ("0", "-3", "nan", "1e+300").
std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// Reads the keys of one file with shape and dtype checks that name the file and key.
class RecordReader {
 public:
  explicit RecordReader(const ArrayArchive& archive) : path_(archive.path()), npz_(archive) {}

  bool has(const std::string& key) const { return npz_.has(key); }

  // Reads key, requiring rank dimensions (kAnyRank: any) and, for an integer key, an integer
  // dtype. Rank and dtype come from the header, before a possibly large entry is decompressed.
  NpyArray read(const std::string& key, int rank, bool integer) const {
    if (!npz_.has(key)) throw Error(path_, key, "missing key");
    const NpyArray header = npz_.read_header(key);
    if (rank != kAnyRank && header.shape.size() != static_cast<size_t>(rank)) {
      throw Error(path_, key,
                  "expected " + std::to_string(rank) + " dimensions, got shape " +
                      shape_text(header.shape));
    }
    if (header.dtype == DType::Bool || (integer && !dtype_is_integer(header.dtype))) {
      throw Error(path_, key,
                  std::string("expected an ") + (integer ? "integer" : "numeric") + " dtype, got " +
                      dtype_name(header.dtype));
    }
    return npz_.read(key);
  }

  void expect_dim(const std::string& key, const NpyArray& array, size_t axis, int64_t expected,
                  const std::string& what) const {
    if (array.dim(axis) != expected) {
      throw Error(path_, key,
                  "shape " + shape_text(array.shape) + ": dimension " + std::to_string(axis) +
                      " should be " + std::to_string(expected) + " (" + what + ")");
    }
  }

  template <typename T>
  std::vector<T> values(const std::string& key, const NpyArray& array) const {
    return array.to_vector<T>(path_ + ": " + key);
  }

  // Runtimes of c configurations, or empty when absent or all zero (test files).
  std::vector<double> runtimes(int64_t count, bool tile) const {
    if (!has("config_runtime")) return {};
    NpyArray runtime = read("config_runtime", 1, false);
    expect_dim("config_runtime", runtime, 0, count, "one per configuration");
    std::vector<double> out = values<double>("config_runtime", runtime);
    bool any_nonzero = false;
    for (double r : out) any_nonzero = any_nonzero || r != 0.0;
    if (!any_nonzero) return {};
    if (tile && has("config_runtime_normalizers")) {
      NpyArray normalizer = read("config_runtime_normalizers", 1, false);
      expect_dim("config_runtime_normalizers", normalizer, 0, count, "one per configuration");
      const std::vector<double> divisor = values<double>("config_runtime_normalizers", normalizer);
      for (int64_t j = 0; j < count; ++j) {
        // Checked before dividing, so a message shows the value the file holds.
        if (!(std::isfinite(out[j]) && out[j] > 0))
          throw Error(path_, "config_runtime",
                      "configuration " + std::to_string(j) + " has runtime " +
                          number_text(out[j]) + " (must be finite and positive)");
        if (!(divisor[j] > 0))
          throw Error(path_, "config_runtime_normalizers",
                      "configuration " + std::to_string(j) + " has normaliser " +
                          number_text(divisor[j]) + " (must be positive)");
        out[j] /= divisor[j];
      }
    }
    return out;
  }

 private:
  std::string path_;
  const ArrayArchive& npz_;
};

void read_graph(const RecordReader& reader, const std::string& path, data::Graph& graph) {
  graph.name = std::filesystem::path(path).stem().string();
  {
    NpyArray feat = reader.read("node_feat", 2, false);
    graph.num_nodes = feat.dim(0);
    graph.feature_width = feat.dim(1);
    graph.node_features = reader.values<float>("node_feat", feat);
  }
  NpyArray opcode = reader.read("node_opcode", 1, true);
  reader.expect_dim("node_opcode", opcode, 0, graph.num_nodes, "one per node_feat row");
  graph.opcodes = reader.values<int32_t>("node_opcode", opcode);

  NpyArray edges = reader.read("edge_index", 2, true);
  reader.expect_dim("edge_index", edges, 1, 2, "[consumer, operand] pairs");
  graph.edges = reader.values<int32_t>("edge_index", edges);
  // Adjacency is built from these values as indices, so range is checked here, not later.
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    if (graph.edges[i] < 0 || graph.edges[i] >= graph.num_nodes) {
      throw Error(path, "edge_index",
                  "edge " + std::to_string(i / 2) + " refers to node " +
                      std::to_string(graph.edges[i]) + " outside [0, " +
                      std::to_string(graph.num_nodes) + ")");
    }
  }
  if (reader.has("node_splits")) {
    // (1, k) in the release; (k,) accepted too.
    NpyArray splits = reader.read("node_splits", kAnyRank, true);
    if (splits.shape.size() == 2 && splits.dim(0) == 1) {
      splits.shape = {splits.dim(1)};
    }
    if (splits.shape.size() != 1) {
      throw Error(path, "node_splits",
                  "expected shape (1, k) or (k,), got " + shape_text(splits.shape));
    }
    graph.node_splits = reader.values<int64_t>("node_splits", splits);
  }
}

// graphcost's own keys, written by `split` so a Kernel Tuner split keeps what its cache said:
// config_failed (uint8, one per configuration, 1 = failed) and default_config (int64, shape
// (1,), -1 when unknown). Files without them (the released dataset) have no failures and no
// known default.
void read_failures(const RecordReader& reader, const std::string& path,
                   data::ConfigTable& configs) {
  if (reader.has("config_failed")) {
    NpyArray failed = reader.read("config_failed", 1, true);
    reader.expect_dim("config_failed", failed, 0, configs.count, "one per configuration");
    std::vector<uint8_t> flags = reader.values<uint8_t>("config_failed", failed);
    bool any = false;
    for (uint8_t f : flags) {
      check_data(f <= 1, path, "config_failed", "flag " + std::to_string(f) + " is not 0 or 1");
      any = any || f != 0;
    }
    if (any) configs.failed = std::move(flags);
  }
  if (reader.has("default_config")) {
    NpyArray index = reader.read("default_config", 1, true);
    reader.expect_dim("default_config", index, 0, 1, "one index");
    configs.default_config = reader.values<int64_t>("default_config", index)[0];
    check_data(configs.default_config >= -1 && configs.default_config < configs.count, path,
               "default_config",
               "index " + std::to_string(configs.default_config) + " outside [-1, " +
                   std::to_string(configs.count) + ")");
  }
}

void read_tile(const RecordReader& reader, data::ConfigTable& configs) {
  NpyArray feat = reader.read("config_feat", 2, false);
  configs.kind = data::ConfigKind::Tile;
  configs.count = feat.dim(0);
  configs.nodes = 0;
  configs.width = feat.dim(1);
  configs.tile = reader.values<float>("config_feat", feat);
  configs.runtimes = reader.runtimes(configs.count, true);
}

void read_layout(const RecordReader& reader, data::Graph& graph, data::ConfigTable& configs) {
  NpyArray ids = reader.read("node_config_ids", 1, true);
  graph.configurable_nodes = reader.values<int32_t>("node_config_ids", ids);
  const int64_t nc = ids.dim(0);
  configs.kind = data::ConfigKind::Layout;
  {
    // Scoped so the float copy (up to ~1 GB) is freed before runtimes are read.
    NpyArray feat = reader.read("node_config_feat", 3, false);
    reader.expect_dim("node_config_feat", feat, 1, nc, "one per node_config_ids entry");
    configs.count = feat.dim(0);
    configs.nodes = nc;
    configs.width = feat.dim(2);
    configs.layout = reader.values<int8_t>("node_config_feat", feat);
  }
  configs.runtimes = reader.runtimes(configs.count, false);
}

}  // namespace

data::GraphRecord read_tpugraphs_npz(const std::string& path) {
  const NpzReader npz(path);
  return read_tpugraphs_record(npz);
}

data::GraphRecord read_tpugraphs_record(const ArrayArchive& archive) {
  const std::string& path = archive.path();
  RecordReader reader(archive);
  const bool tile = reader.has("config_feat");
  const bool layout = reader.has("node_config_feat");
  if (tile == layout) {
    check_data(reader.has("node_feat") || reader.has("node_opcode") || reader.has("edge_index"),
               path, "",
               "holds none of the TpuGraphs arrays (node_feat, node_opcode, edge_index, "
               "config_feat or node_config_feat): an empty archive, or not a TpuGraphs file");
    throw Error(path, "",
                tile ? "has both config_feat (tile) and node_config_feat (layout)"
                     : "has neither config_feat (tile) nor node_config_feat (layout)");
  }
  data::GraphRecord record;
  record.source = path;
  read_graph(reader, path, record.graph);
  if (tile) {
    read_tile(reader, record.configs);
  } else {
    read_layout(reader, record.graph, record.configs);
  }
  read_failures(reader, path, record.configs);
  record.graph.build_adjacency();
  return record;
}

namespace {

void check_count(const std::string& path, const std::string& key, size_t actual, size_t expected,
                 const std::string& what) {
  if (actual != expected) {
    throw Error(path, key,
                "has " + std::to_string(actual) + " values, expected " + std::to_string(expected) +
                    " (" + what + ")");
  }
}

std::vector<float> to_float(const std::vector<int8_t>& values) {
  return std::vector<float>(values.begin(), values.end());
}

}  // namespace

void write_tpugraphs_npz(const std::string& path, const data::GraphRecord& record,
                         const RuntimeColumns& runtimes, bool compress) {
  const data::Graph& graph = record.graph;
  const data::ConfigTable& configs = record.configs;
  const int64_t n = graph.num_nodes;
  check_count(path, "node_feat", graph.node_features.size(), n * graph.feature_width,
              "num_nodes * feature_width");
  check_count(path, "node_opcode", graph.opcodes.size(), n, "num_nodes");
  NpzWriter writer(path, compress);
  writer.add("node_feat", make_array(graph.node_features, {n, graph.feature_width}));
  bool opcodes_fit_uint8 = true;
  for (int32_t op : graph.opcodes) opcodes_fit_uint8 = opcodes_fit_uint8 && op >= 0 && op <= 255;
  if (opcodes_fit_uint8) {
    writer.add("node_opcode",
               make_array(std::vector<uint8_t>(graph.opcodes.begin(), graph.opcodes.end()), {n}));
  } else {
    writer.add("node_opcode", make_array(graph.opcodes, {n}));
  }
  writer.add("edge_index", make_array(std::vector<int64_t>(graph.edges.begin(), graph.edges.end()),
                                      {graph.num_edges(), 2}));
  const int64_t c = configs.count;
  if (configs.kind == data::ConfigKind::Tile) {
    check_count(path, "config_feat", configs.tile.size(), c * configs.width, "count * width");
    writer.add("config_feat", make_array(configs.tile, {c, configs.width}));
  } else {
    const int64_t nc = configs.nodes;
    check_count(path, "node_config_ids", graph.configurable_nodes.size(), nc, "configs.nodes");
    check_count(path, "node_config_feat", configs.layout.size(), c * nc * configs.width,
                "count * nodes * width");
    writer.add("node_config_ids", make_array(std::vector<int64_t>(graph.configurable_nodes.begin(),
                                                                  graph.configurable_nodes.end()),
                                             {nc}));
    writer.add("node_config_feat", make_array(to_float(configs.layout), {c, nc, configs.width}));
    if (!graph.node_splits.empty()) {
      writer.add("node_splits", make_array(graph.node_splits,
                                           {1, static_cast<int64_t>(graph.node_splits.size())}));
    }
  }
  if (!runtimes.runtime_ns.empty()) {
    check_count(path, "config_runtime", runtimes.runtime_ns.size(), c, "one per configuration");
    writer.add("config_runtime", make_array(runtimes.runtime_ns, {c}));
  }
  if (!runtimes.normalizer_ns.empty()) {
    check_count(path, "config_runtime_normalizers", runtimes.normalizer_ns.size(), c,
                "one per configuration");
    writer.add("config_runtime_normalizers", make_array(runtimes.normalizer_ns, {c}));
  }
  if (!configs.failed.empty()) {
    check_count(path, "config_failed", configs.failed.size(), c, "one per configuration");
    writer.add("config_failed", make_array(configs.failed, {c}));
  }
  if (configs.default_config >= 0) {
    writer.add("default_config", make_array(std::vector<int64_t>{configs.default_config}, {1}));
  }
  writer.commit();
}

}  // namespace graphcost::io
