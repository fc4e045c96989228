// The packed store: one file per collection and split, memory-mapped when read, so any one
// configuration of any graph is read in O(1) without touching the others. The byte layout is
// documented in docs/pack-format.md.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "data/collection.h"
#include "io/pack_layout.h"

namespace graphcost::io {

// Writes a pack one graph at a time, so packing never holds more than one graph's
// configurations in memory. Content goes to "<path>.tmp.<pid>" and is renamed over path only
// by commit(); an abandoned writer leaves nothing behind.
class PackWriter {
 public:
  PackWriter(const std::string& path, const data::CollectionId& id, const std::string& split,
             data::ConfigKind kind, int64_t node_feature_width, int64_t config_width);
  ~PackWriter();
  PackWriter(const PackWriter&) = delete;
  PackWriter& operator=(const PackWriter&) = delete;

  // Appends one graph and its configurations. A record whose widths, kind or array sizes do
  // not agree with the pack is an Error naming the record's source (or graph name).
  void add(const data::GraphRecord& record);
  void add(const data::Graph& graph, const data::ConfigView& configs, const std::string& source);
  // Writes directory and header, fsyncs and renames. Zero graphs is an Error ("empty collection").
  void commit();

  int64_t graphs() const { return static_cast<int64_t>(entries_.size()); }
  int64_t configurations() const { return configurations_; }
  // Bytes written so far (the final file size after commit()).
  uint64_t bytes() const { return offset_; }

 private:
  void write_bytes(const void* data, uint64_t bytes, uint32_t* crc);
  void pad_to_alignment(uint32_t* crc);

  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  data::CollectionId id_;
  std::string split_;
  data::ConfigKind kind_;
  int64_t node_feature_width_;
  int64_t config_width_;
  uint64_t offset_ = 0;
  int64_t configurations_ = 0;
  std::vector<PackDirectoryEntry> entries_;
  std::string strings_;  // names and sources, referenced by the entries
  bool committed_ = false;
};

// Writes every graph of a collection to path (via PackWriter).
void write_pack(const std::string& path, const data::Collection& collection);

// A collection read from a pack through a read-only shared memory mapping. Opening checks the
// header and directory (magic, version, checksums, every offset and size within the file).
// When a graph is first touched (graph(g) or configs(g)), its section and configuration block
// checksums are checked and it goes through data::validate_graph, as an npz graph does on
// load; verify() checks every checksum of the file at once.
class PackCollection : public data::Collection {
 public:
  // A missing, truncated or corrupted file is an Error "<path>: <what>".
  explicit PackCollection(const std::string& path);
  ~PackCollection() override;
  PackCollection(const PackCollection&) = delete;
  PackCollection& operator=(const PackCollection&) = delete;

  const data::CollectionId& id() const override { return id_; }
  const std::string& split() const override { return split_; }
  int64_t size() const override { return static_cast<int64_t>(entries_.size()); }
  // Materialises graph g once (thread-safe), adjacency included.
  const data::Graph& graph(int64_t g) const override;
  // Points into the mapping; valid while this collection lives. Materialises graph g first
  // (so its checks have run).
  data::ConfigView configs(int64_t g) const override;
  const std::string& source(int64_t g) const override { return sources_[g]; }

  const std::string& path() const { return path_; }
  const std::string& name(int64_t g) const { return names_[g]; }
  data::ConfigKind kind() const { return kind_; }
  int64_t pack_node_feature_width() const { return node_feature_width_; }
  int64_t pack_config_width() const { return config_width_; }
  uint64_t file_bytes() const { return mapped_bytes_; }
  int64_t total_configurations() const;

  // Checks graph g's section and configuration block checksums; a mismatch is an Error naming
  // the pack and the graph.
  void verify(int64_t g) const;
  // verify(g) for every graph.
  void verify() const;

 private:
  struct LazyGraph {
    std::once_flag once;
    data::Graph graph;
  };
  const uint8_t* at(uint64_t offset) const { return mapped_ + offset; }
  void load_graph(int64_t g, data::Graph* graph) const;
  // The view of graph g's configuration block, without first-touch checks.
  data::ConfigView config_view(int64_t g) const;

  std::string path_;
  const uint8_t* mapped_ = nullptr;
  uint64_t mapped_bytes_ = 0;
  data::CollectionId id_;
  std::string split_;
  data::ConfigKind kind_ = data::ConfigKind::Tile;
  int64_t node_feature_width_ = 0;
  int64_t config_width_ = 0;
  std::vector<PackDirectoryEntry> entries_;
  std::vector<std::string> names_;
  std::vector<std::string> sources_;
  std::unique_ptr<LazyGraph[]> graphs_;
};

// True when path exists and starts with the pack magic ("GCPACK").
bool is_pack_file(const std::string& path);

// Opens the pack and checks every checksum (header, directory, graph sections, configuration
// blocks); the first problem is an Error naming the pack and the graph.
void verify_pack(const std::string& path);

}  // namespace graphcost::io
