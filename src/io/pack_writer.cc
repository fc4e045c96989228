#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "io/pack.h"

namespace graphcost::io {

namespace {
void copy_name(char* field, size_t field_bytes, const std::string& text, const std::string& path,
               const std::string& what) {
  check_data(text.size() < field_bytes && text.find('\0') == std::string::npos, path, what,
             "'" + text + "' does not fit the pack header (at most " +
                 std::to_string(field_bytes - 1) + " characters)");
  std::memset(field, 0, field_bytes);
  std::memcpy(field, text.data(), text.size());
}
}  // namespace

PackWriter::PackWriter(const std::string& path, const data::CollectionId& id,
                       const std::string& split, data::ConfigKind kind, int64_t node_feature_width,
                       int64_t config_width)
    : path_(path),
      temp_path_(path + ".tmp." + std::to_string(::getpid())),
      id_(id),
      split_(split),
      kind_(kind),
      node_feature_width_(node_feature_width),
      config_width_(config_width) {
  check_data(node_feature_width >= 0 && config_width >= 0, path, "", "negative feature width");
  PackHeader probe{};
  copy_name(probe.space, sizeof(probe.space), id.space, path, "collection space");
  copy_name(probe.search, sizeof(probe.search), id.search, path, "collection search");
  copy_name(probe.split, sizeof(probe.split), split, path, "split");
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) throw Error(path_, "", std::string("cannot create file: ") + std::strerror(errno));
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
  // The header is written last, once the directory's place is known; reserve it now.
  const PackHeader placeholder{};
  write_bytes(&placeholder, sizeof(placeholder), nullptr);
}

PackWriter::~PackWriter() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_path_.c_str());
}

void PackWriter::write_bytes(const void* data, uint64_t bytes, uint32_t* crc) {
  if (bytes == 0) return;
  if (std::fwrite(data, 1, bytes, file_) != bytes) {
    // The file position no longer matches offset_: close it so the writer cannot go on.
    const std::string reason = std::strerror(errno);
    std::fclose(file_);
    file_ = nullptr;
    throw Error(path_, "", "write failed: " + reason);
  }
  if (crc) *crc = crc32_update(*crc, data, bytes);
  offset_ += bytes;
}

void PackWriter::pad_to_alignment(uint32_t* crc) {
  static const uint8_t zeros[kPackAlignment] = {};
  write_bytes(zeros, align_up(offset_) - offset_, crc);
}

void PackWriter::add(const data::GraphRecord& record) {
  add(record.graph, record.configs.view(), record.source);
}

void PackWriter::add(const data::Graph& graph, const data::ConfigView& configs,
                     const std::string& source) {
  check_data(!committed_ && file_, path_, "",
             "writer is closed (after commit() or a failed write)");
  const std::string where =
      path_ + ": graph " + graph.name + (source.empty() ? "" : " (" + source + ")");
  const bool tile = kind_ == data::ConfigKind::Tile;
  const int64_t n = graph.num_nodes;
  const int64_t nc = static_cast<int64_t>(graph.configurable_nodes.size());
  check_data(n >= 0 && static_cast<int64_t>(graph.opcodes.size()) == n, where, "opcodes",
             "size differs from num_nodes");
  check_data(graph.feature_width == node_feature_width_, where, "node_features",
             "width " + std::to_string(graph.feature_width) + " differs from the pack's " +
                 std::to_string(node_feature_width_));
  check_data(static_cast<int64_t>(graph.node_features.size()) == n * node_feature_width_, where,
             "node_features", "size differs from num_nodes * width");
  check_data(graph.edges.size() % 2 == 0, where, "edges", "odd number of endpoints");
  check_data(configs.kind == kind_, where, "configs",
             "kind " + data::config_kind_name(configs.kind) + " in a " +
                 data::config_kind_name(kind_) + " pack");
  check_data(configs.width == config_width_, where, "configs",
             "width " + std::to_string(configs.width) + " differs from the pack's " +
                 std::to_string(config_width_));
  check_data(configs.count >= 0, where, "configs", "negative count");
  check_data(tile || configs.nodes == nc, where, "configs",
             "configurable node count " + std::to_string(configs.nodes) +
                 " differs from node_config_ids (" + std::to_string(nc) + ")");
  const int64_t values = configs.count * (tile ? config_width_ : nc * config_width_);
  check_data(values == 0 || (tile ? configs.tile != nullptr : configs.layout != nullptr), where,
             "configs", "missing configuration values");
  check_data(graph.name.size() < (1u << 31) && source.size() < (1u << 31), path_, "",
             "name too long");

  PackDirectoryEntry entry{};
  entry.num_nodes = n;
  entry.num_edges = graph.num_edges();
  entry.num_splits = static_cast<int64_t>(graph.node_splits.size());
  entry.num_configurable = nc;
  entry.config_count = configs.count;
  entry.config_nodes = tile ? 0 : nc;
  check_data(configs.default_config >= -1 && configs.default_config < configs.count, where,
             "default_config", "index " + std::to_string(configs.default_config) +
                                   " outside [-1, " + std::to_string(configs.count) + ")");
  entry.flags = (configs.has_runtimes() ? kPackHasRuntimes : 0) |
                (configs.failed != nullptr ? kPackHasFailed : 0);
  entry.default_config = configs.default_config;
  entry.name_offset = strings_.size();
  entry.name_bytes = static_cast<uint32_t>(graph.name.size());
  strings_ += graph.name;
  entry.source_offset = strings_.size();
  entry.source_bytes = static_cast<uint32_t>(source.size());
  strings_ += source;

  pad_to_alignment(nullptr);
  entry.section_offset = offset_;
  uint32_t crc = 0;
  write_bytes(graph.opcodes.data(), n * sizeof(int32_t), &crc);
  pad_to_alignment(&crc);
  write_bytes(graph.node_features.data(), graph.node_features.size() * sizeof(float), &crc);
  pad_to_alignment(&crc);
  write_bytes(graph.edges.data(), graph.edges.size() * sizeof(int32_t), &crc);
  pad_to_alignment(&crc);
  write_bytes(graph.node_splits.data(), graph.node_splits.size() * sizeof(int64_t), &crc);
  pad_to_alignment(&crc);
  write_bytes(graph.configurable_nodes.data(), nc * sizeof(int32_t), &crc);
  entry.section_bytes = offset_ - entry.section_offset;
  entry.section_crc = crc;

  pad_to_alignment(nullptr);
  entry.configs_offset = offset_;
  crc = 0;
  if (configs.has_runtimes()) write_bytes(configs.runtimes, configs.count * sizeof(double), &crc);
  pad_to_alignment(&crc);
  if (configs.failed != nullptr) write_bytes(configs.failed, configs.count, &crc);
  pad_to_alignment(&crc);
  if (tile) {
    write_bytes(configs.tile, values * sizeof(float), &crc);
  } else {
    write_bytes(configs.layout, values, &crc);
  }
  entry.configs_bytes = offset_ - entry.configs_offset;
  entry.configs_crc = crc;

  // The reader recomputes these from the counts; the two must agree.
  GraphSectionLayout section;
  ConfigBlockLayout block;
  assert(graph_section_layout(entry, node_feature_width_, &section) &&
         section.end == entry.section_bytes);
  assert(config_block_layout(entry, tile, config_width_, &block) &&
         block.end == entry.configs_bytes);
  (void)section;
  (void)block;
  entries_.push_back(entry);
  configurations_ += configs.count;
}

void PackWriter::commit() {
  check_data(!committed_ && file_, path_, "",
             "writer is closed (after commit() or a failed write)");
  check_data(!entries_.empty(), path_, "", "empty collection: a pack needs at least one graph");
  PackHeader header{};
  std::memcpy(header.magic, kPackMagic, sizeof(kPackMagic));
  header.version = kPackVersion;
  header.kind = kind_ == data::ConfigKind::Tile ? 0 : 1;
  copy_name(header.space, sizeof(header.space), id_.space, path_, "collection space");
  copy_name(header.search, sizeof(header.search), id_.search, path_, "collection search");
  copy_name(header.split, sizeof(header.split), split_, path_, "split");
  header.graph_count = static_cast<int64_t>(entries_.size());
  header.node_feature_width = node_feature_width_;
  header.config_width = config_width_;

  pad_to_alignment(nullptr);
  header.directory_offset = offset_;
  uint32_t crc = 0;
  write_bytes(entries_.data(), entries_.size() * sizeof(PackDirectoryEntry), &crc);
  header.strings_offset = offset_;
  header.strings_bytes = strings_.size();
  write_bytes(strings_.data(), strings_.size(), &crc);
  header.directory_bytes = offset_ - header.directory_offset;
  header.directory_crc = crc;
  header.file_bytes = offset_;
  header.header_crc = crc32_update(0, &header, offsetof(PackHeader, header_crc));

  if (std::fseek(file_, 0, SEEK_SET) != 0 || std::fwrite(&header, sizeof(header), 1, file_) != 1 ||
      std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) {
    throw Error(path_, "", std::string("write failed: ") + std::strerror(errno));
  }
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw Error(path_, "", std::string("rename failed: ") + std::strerror(errno));
  }
  committed_ = true;
}

void write_pack(const std::string& path, const data::Collection& collection) {
  check_data(collection.size() > 0, path, "", "empty collection: a pack needs at least one graph");
  const data::ConfigView first = collection.configs(0);
  PackWriter writer(path, collection.id(), collection.split(), first.kind,
                    collection.graph(0).feature_width, first.width);
  for (int64_t g = 0; g < collection.size(); ++g) {
    writer.add(collection.graph(g), collection.configs(g), collection.source(g));
  }
  writer.commit();
}

}  // namespace graphcost::io
