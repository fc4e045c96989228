// Collections: the graphs of one collection id and split, with O(1) access to any
// configuration of any graph, whatever the source (npz folder, single file, pack). Reading a
// path as a collection is io::open_collection (io/collection_readers.h): io/ reads files into
// these records, and data/ includes nothing from io/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/configs.h"
#include "data/graph.h"

namespace graphcost::data {

// One of the five TpuGraphs collections: tile:xla, layout:{xla,nlp}:{default,random}.
struct CollectionId {
  ConfigKind kind = ConfigKind::Layout;
  std::string space = "xla";       // "xla" or "nlp"
  std::string search = "default";  // "default" or "random"; empty for tile

  std::string str() const;           // "tile:xla", "layout:nlp:random"
  std::string relative_dir() const;  // "npz/tile/xla", "npz/layout/nlp/random"
  // Parses an id; an unknown one is an Error listing the valid ids.
  static CollectionId parse(const std::string& text);
  static std::vector<CollectionId> all();
  bool operator==(const CollectionId& other) const { return str() == other.str(); }
};

// One graph and its configurations, as a source adapter produces them.
struct GraphRecord {
  Graph graph;
  ConfigTable configs;
  std::string source;  // the file it came from, for messages
  int64_t duplicates_merged = 0;  // configurations merged away by dedup on load
};

class Collection {
 public:
  virtual ~Collection() = default;
  virtual const CollectionId& id() const = 0;
  virtual const std::string& split() const = 0;
  virtual int64_t size() const = 0;
  virtual const Graph& graph(int64_t g) const = 0;
  virtual ConfigView configs(int64_t g) const = 0;
  virtual const std::string& source(int64_t g) const = 0;
  // Node feature width and configuration feature width, the same for every graph.
  int64_t node_feature_width() const;
  int64_t config_width() const;
};

// A collection held in memory (loaded from npz or pb files).
class MemoryCollection : public Collection {
 public:
  MemoryCollection(CollectionId id, std::string split, std::vector<GraphRecord> records);
  const CollectionId& id() const override { return id_; }
  const std::string& split() const override { return split_; }
  int64_t size() const override { return static_cast<int64_t>(records_.size()); }
  const Graph& graph(int64_t g) const override { return records_[g].graph; }
  ConfigView configs(int64_t g) const override { return records_[g].configs.view(); }
  const std::string& source(int64_t g) const override { return records_[g].source; }
  const GraphRecord& record(int64_t g) const { return records_[g]; }

 private:
  CollectionId id_;
  std::string split_;
  std::vector<GraphRecord> records_;
};

// The graphs of base listed in kept (indices into base, in that order), as a collection that
// shares base's storage; id and split are base's.
std::unique_ptr<Collection> select_graphs(std::unique_ptr<Collection> base,
                                          std::vector<int64_t> kept);

struct LoadOptions {
  // Warn and skip a file that fails validation instead of failing the whole load.
  bool skip_invalid = false;
  // Merge identical configurations of a graph keeping the minimum runtime (only where
  // runtimes are known; test files keep their indices for submissions).
  bool merge_duplicates = true;
  // Graph names (file stems) to leave out, e.g. corrupted graphs.
  std::vector<std::string> exclude;
  // Take the kind (tile or layout) from the files instead of the collection id; for commands
  // that look at any file (inspect, split) rather than train on a named collection.
  bool kind_from_data = false;
  // Keep only the nodes within this many hops of a configurable node (layout graphs; see
  // data/prune.h).
  int prune_hops = -1;  // -1: no pruning
  // Only configurable nodes with these opcodes seed the neighbourhood (every configurable node
  // is kept regardless); empty: all of them seed it. See data/prune.h, parse_prune_seeds.
  std::vector<int32_t> prune_seed_opcodes;
  // Raw protobuf records (.pb): append the extended feature columns (docs/ingest.md).
  bool extended_features = false;
  // Kernel Tuner caches: a device table file adding to or replacing entries of the built-in one
  // (data/device_table.h; empty: the built-in table alone), and the device of a cache whose
  // device_name is empty or absent (empty: such a cache has an unknown device).
  std::string devices;
  std::string device_name;
};

// The dataset root a folder stands for: the folder itself when it holds npz/, its parent when it
// is that npz/ folder (it holds layout/ or tile/), otherwise empty.
std::string dataset_root_of(const std::string& path);

// True for the split names: train, valid, test.
bool is_split_name(const std::string& name);

// The collection a folder stands for by its last names, as the dataset lays them out:
// ".../tile/xla" or ".../layout/{xla,nlp}/{default,random}", either one optionally followed by a
// split folder (train, valid or test). nullopt for anything else (a file, a dataset root, a
// folder named otherwise).
std::optional<CollectionId> collection_id_in_path(const std::string& path);

// Receives one graph of io::for_each_graph; the references are valid during the call only.
using GraphConsumer =
    std::function<void(const Graph& graph, const ConfigView& configs, const std::string& source)>;

}  // namespace graphcost::data
