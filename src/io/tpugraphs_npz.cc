#include "io/tpugraphs_npz.h"

#include <filesystem>
#include <map>
#include <memory>

#include "core/error.h"
#include "io/npz.h"

namespace graphcost::io {

namespace {

constexpr int kAnyRank = -1;

// Reads the keys of one file, or of arrays already in memory (read_tpugraphs_arrays), with shape
// and dtype checks that name the file and key.
class RecordReader {
 public:
  explicit RecordReader(const std::string& path)
      : path_(path), npz_(std::make_unique<NpzReader>(path)) {}
  RecordReader(const std::string& name, const std::map<std::string, NpyArray>& arrays)
      : path_(name), arrays_(&arrays) {}

  bool has(const std::string& key) const { return npz_ ? npz_->has(key) : arrays_->count(key) > 0; }

  // Reads key, requiring rank dimensions (kAnyRank: any) and, for an integer key, an integer
  // dtype. Rank and dtype come from the header, before a possibly large entry is decompressed.
  NpyArray read(const std::string& key, int rank, bool integer) const {
    if (!has(key)) throw Error(path_, key, "missing key");
    NpyArray from_file;
    if (npz_) from_file = npz_->read_header(key);
    const NpyArray& header = npz_ ? from_file : arrays_->at(key);
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
    return npz_ ? npz_->read(key) : arrays_->at(key);
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
        if (!(divisor[j] > 0))
          throw Error(path_, "config_runtime_normalizers",
                      "configuration " + std::to_string(j) + " has normaliser " +
                          std::to_string(static_cast<int64_t>(divisor[j])) + " (must be positive)");
        out[j] /= divisor[j];
      }
    }
    return out;
  }

 private:
  std::string path_;
  std::unique_ptr<NpzReader> npz_;                        // a file, or
  const std::map<std::string, NpyArray>* arrays_ = nullptr;  // arrays in memory
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

namespace {

data::GraphRecord read_record(const RecordReader& reader, const std::string& path) {
  const bool tile = reader.has("config_feat");
  const bool layout = reader.has("node_config_feat");
  if (tile == layout) {
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
  record.graph.build_adjacency();
  return record;
}

}  // namespace

data::GraphRecord read_tpugraphs_npz(const std::string& path) {
  return read_record(RecordReader(path), path);
}

data::GraphRecord read_tpugraphs_arrays(const std::string& name,
                                        const std::map<std::string, NpyArray>& arrays) {
  return read_record(RecordReader(name, arrays), name);
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
  writer.commit();
}

}  // namespace graphcost::io
