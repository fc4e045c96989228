#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "data/validate.h"
#include "io/pack.h"

namespace graphcost::io {

namespace {

// Format versions above this build's that a header may plausibly name (later graphcost builds).
constexpr uint32_t kNewerPackVersionsRecognised = 64;

bool within(uint64_t offset, uint64_t bytes, uint64_t file_bytes) {
  return offset <= file_bytes && bytes <= file_bytes - offset;
}

// A NUL-terminated printable string in a fixed-width header field.
bool read_field(const char* field, size_t field_bytes, std::string* out) {
  const void* end = std::memchr(field, '\0', field_bytes);
  if (!end) return false;
  out->assign(field, static_cast<const char*>(end));
  for (char c : *out) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

std::string hex(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "%08x", value);
  return text;
}

template <typename T>
void copy_array(std::vector<T>* out, const uint8_t* base, uint64_t offset, int64_t count) {
  out->resize(count);
  if (count > 0) std::memcpy(out->data(), base + offset, count * sizeof(T));
}
}  // namespace

PackCollection::PackCollection(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path, "", std::string("cannot open pack: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    ::close(fd);
    throw Error(path, "", std::string("cannot stat pack: ") + std::strerror(errno));
  }
  mapped_bytes_ = static_cast<uint64_t>(info.st_size);
  if (mapped_bytes_ < sizeof(PackHeader)) {
    ::close(fd);
    throw Error(path, "",
                "truncated pack: " + std::to_string(mapped_bytes_) + " bytes, shorter than the " +
                    std::to_string(sizeof(PackHeader)) + "-byte header");
  }
  void* mapping = ::mmap(nullptr, mapped_bytes_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (mapping == MAP_FAILED)
    throw Error(path, "", std::string("cannot map pack: ") + std::strerror(errno));
  mapped_ = static_cast<const uint8_t*>(mapping);

  // From here a failure must unmap; the destructor does not run for a throwing constructor.
  try {
    PackHeader header;
    std::memcpy(&header, mapped_, sizeof(header));
    check_data(std::memcmp(header.magic, kPackMagic, 6) == 0, path, "",
               "not a pack file (no GCPACK magic)");
    const uint32_t header_crc = crc32_update(0, &header, offsetof(PackHeader, header_crc));
    // A version no graphcost ever wrote, in a header whose checksum fails, is damage (a flipped
    // byte), not a format from another build.
    const bool plausible_version =
        header.version > 0 && header.version <= kPackVersion + kNewerPackVersionsRecognised;
    check_data(header_crc == header.header_crc || plausible_version, path, "header",
               "checksum mismatch (stored " + hex(header.header_crc) + ", computed " +
                   hex(header_crc) + "): the header is damaged");
    check_data(header.version >= kPackVersion, path, "header",
               "format version " + std::to_string(header.version) + " is older than this build's " +
                   std::to_string(kPackVersion) +
                   " (it lacks failed-configuration flags and the default configuration): "
                   "re-pack it from its source with `graphcost pack`");
    check_data(header.version == kPackVersion, path, "header",
               "format version " + std::to_string(header.version) + ", this build reads version " +
                   std::to_string(kPackVersion));
    check_data(header_crc == header.header_crc, path, "header",
               "checksum mismatch (stored " + hex(header.header_crc) + ", computed " +
                   hex(header_crc) + ")");
    check_data(header.file_bytes == mapped_bytes_, path, "",
               "truncated or extended pack: header says " + std::to_string(header.file_bytes) +
                   " bytes, file has " + std::to_string(mapped_bytes_));
    check_data(header.kind <= 1, path, "header",
               "unknown configuration kind " + std::to_string(header.kind));
    kind_ = header.kind == 0 ? data::ConfigKind::Tile : data::ConfigKind::Layout;
    id_.kind = kind_;
    check_data(read_field(header.space, sizeof(header.space), &id_.space) &&
                   read_field(header.search, sizeof(header.search), &id_.search) &&
                   read_field(header.split, sizeof(header.split), &split_),
               path, "header", "malformed collection id or split");
    node_feature_width_ = header.node_feature_width;
    config_width_ = header.config_width;
    check_data(node_feature_width_ >= 0 && config_width_ >= 0, path, "header",
               "negative feature width");
    check_data(header.graph_count > 0, path, "header", "no graphs");
    const uint64_t entries_bytes =
        static_cast<uint64_t>(header.graph_count) * sizeof(PackDirectoryEntry);
    check_data(
        header.graph_count <= static_cast<int64_t>(mapped_bytes_ / sizeof(PackDirectoryEntry)) &&
            within(header.directory_offset, header.directory_bytes, mapped_bytes_) &&
            header.directory_offset % kPackAlignment == 0 &&
            header.strings_offset == header.directory_offset + entries_bytes &&
            header.strings_bytes <= header.directory_bytes &&
            header.directory_bytes == entries_bytes + header.strings_bytes,
        path, "directory", "offsets or sizes outside the file");
    const uint32_t directory_crc =
        crc32_update(0, at(header.directory_offset), header.directory_bytes);
    check_data(directory_crc == header.directory_crc, path, "directory",
               "checksum mismatch (stored " + hex(header.directory_crc) + ", computed " +
                   hex(directory_crc) + ")");

    entries_.resize(header.graph_count);
    std::memcpy(entries_.data(), at(header.directory_offset), entries_bytes);
    names_.resize(entries_.size());
    sources_.resize(entries_.size());
    const char* strings = reinterpret_cast<const char*>(at(header.strings_offset));
    const bool tile = kind_ == data::ConfigKind::Tile;
    for (size_t g = 0; g < entries_.size(); ++g) {
      const PackDirectoryEntry& e = entries_[g];
      const std::string key = "directory entry " + std::to_string(g);
      check_data(within(e.name_offset, e.name_bytes, header.strings_bytes) &&
                     within(e.source_offset, e.source_bytes, header.strings_bytes),
                 path, key, "name outside the string table");
      names_[g].assign(strings + e.name_offset, e.name_bytes);
      sources_[g].assign(strings + e.source_offset, e.source_bytes);
      GraphSectionLayout section;
      ConfigBlockLayout block;
      check_data(graph_section_layout(e, node_feature_width_, &section) &&
                     section.end == e.section_bytes &&
                     within(e.section_offset, e.section_bytes, mapped_bytes_) &&
                     e.section_offset % kPackAlignment == 0,
                 path, key, "graph " + names_[g] + ": section offsets or sizes outside the file");
      check_data(e.config_nodes == (tile ? 0 : e.num_configurable) &&
                     config_block_layout(e, tile, config_width_, &block) &&
                     block.end == e.configs_bytes &&
                     within(e.configs_offset, e.configs_bytes, mapped_bytes_) &&
                     e.configs_offset % kPackAlignment == 0,
                 path, key,
                 "graph " + names_[g] + ": configuration block outside the file or inconsistent");
      check_data((e.flags & ~(kPackHasRuntimes | kPackHasFailed)) == 0 &&
                     e.default_config >= -1 && e.default_config < e.config_count,
                 path, key, "graph " + names_[g] + ": unknown flags or default configuration");
    }
    graphs_ = std::make_unique<LazyGraph[]>(entries_.size());
  } catch (...) {
    ::munmap(const_cast<uint8_t*>(mapped_), mapped_bytes_);
    throw;
  }
}

PackCollection::~PackCollection() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(mapped_), mapped_bytes_);
}

const data::Graph& PackCollection::graph(int64_t g) const {
  LazyGraph& slot = graphs_[g];
  // A throwing load leaves the flag unset, so the next call reports the same error again.
  std::call_once(slot.once, [&] { load_graph(g, &slot.graph); });
  return slot.graph;
}

void PackCollection::load_graph(int64_t g, data::Graph* graph) const {
  const PackDirectoryEntry& e = entries_[g];
  const std::string key = "graph " + names_[g];
  // Both checksums on first touch: a flipped byte in a runtime would otherwise reorder labels
  // silently. This reads the graph's configuration block once; later reads are O(1).
  verify(g);
  GraphSectionLayout layout;
  graph_section_layout(e, node_feature_width_, &layout);  // checked on open
  const uint8_t* base = at(e.section_offset);
  data::Graph out;
  out.name = names_[g];
  out.num_nodes = e.num_nodes;
  out.feature_width = node_feature_width_;
  copy_array(&out.opcodes, base, layout.opcodes, e.num_nodes);
  copy_array(&out.node_features, base, layout.node_features, e.num_nodes * node_feature_width_);
  copy_array(&out.edges, base, layout.edges, 2 * e.num_edges);
  copy_array(&out.node_splits, base, layout.node_splits, e.num_splits);
  copy_array(&out.configurable_nodes, base, layout.configurable, e.num_configurable);
  // A checksum only proves the bytes are what the writer wrote; indices must still be in range
  // before they index the adjacency arrays.
  for (int32_t v : out.edges)
    check_data(v >= 0 && v < e.num_nodes, path_, key, "edge endpoint out of range");
  for (int32_t v : out.configurable_nodes) {
    check_data(v >= 0 && v < e.num_nodes, path_, key, "configurable node id out of range");
  }
  // The same record checks as npz graphs get on load: runtimes finite and positive, layout
  // values in range, flags 0 or 1, and so on.
  data::validate_graph(out, config_view(g), path_ + ": " + key);
  out.build_adjacency();
  *graph = std::move(out);
}

data::ConfigView PackCollection::configs(int64_t g) const {
  graph(g);  // checked and validated on first touch
  return config_view(g);
}

data::ConfigView PackCollection::config_view(int64_t g) const {
  const PackDirectoryEntry& e = entries_[g];
  ConfigBlockLayout layout;
  const bool tile = kind_ == data::ConfigKind::Tile;
  config_block_layout(e, tile, config_width_, &layout);  // checked on open
  data::ConfigView view;
  view.kind = kind_;
  view.count = e.config_count;
  view.nodes = e.config_nodes;
  view.width = config_width_;
  const uint8_t* base = at(e.configs_offset);
  if (tile) {
    view.tile = reinterpret_cast<const float*>(base + layout.values);
  } else {
    view.layout = reinterpret_cast<const int8_t*>(base + layout.values);
  }
  if (e.flags & kPackHasRuntimes)
    view.runtimes = reinterpret_cast<const double*>(base + layout.runtimes);
  if (e.flags & kPackHasFailed) view.failed = base + layout.failed;
  view.default_config = e.default_config;
  return view;
}

int64_t PackCollection::total_configurations() const {
  int64_t total = 0;
  for (const PackDirectoryEntry& e : entries_) total += e.config_count;
  return total;
}

void PackCollection::verify(int64_t g) const {
  const PackDirectoryEntry& e = entries_[g];
  const std::string key = "graph " + names_[g];
  uint32_t crc = crc32_update(0, at(e.section_offset), e.section_bytes);
  check_data(crc == e.section_crc, path_, key,
             "graph section checksum mismatch (stored " + hex(e.section_crc) + ", computed " +
                 hex(crc) + ")");
  crc = crc32_update(0, at(e.configs_offset), e.configs_bytes);
  check_data(crc == e.configs_crc, path_, key,
             "configuration block checksum mismatch (stored " + hex(e.configs_crc) + ", computed " +
                 hex(crc) + ")");
}

void PackCollection::verify() const {
  for (int64_t g = 0; g < size(); ++g) verify(g);
}

bool is_pack_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return false;
  char magic[6] = {};
  const bool ok = std::fread(magic, 1, sizeof(magic), file) == sizeof(magic) &&
                  std::memcmp(magic, kPackMagic, sizeof(magic)) == 0;
  std::fclose(file);
  return ok;
}

void verify_pack(const std::string& path) {
  PackCollection pack(path);
  pack.verify();
}

}  // namespace graphcost::io
