// The on-disk records of the pack format (docs/pack-format.md) and the arithmetic that places
// arrays inside a graph section and a configuration block, shared by writer and reader.
// All integers are little-endian; the structs are written as they are in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace graphcost::io {

constexpr char kPackMagic[8] = {'G', 'C', 'P', 'A', 'C', 'K', '\0', '\0'};
// Version 2 added the failed-configuration flags and the default-configuration index; a
// version 1 pack is refused with a message saying to re-pack it.
constexpr uint32_t kPackVersion = 2;
constexpr uint64_t kPackAlignment = 64;
constexpr uint32_t kPackHasRuntimes = 1;  // directory entry flags
constexpr uint32_t kPackHasFailed = 2;

// 256 bytes at offset 0.
struct PackHeader {
  char magic[8];
  uint32_t version;
  uint32_t kind;   // 0 tile, 1 layout
  char space[16];  // collection id parts, NUL-padded
  char search[16];
  char split[16];
  uint64_t file_bytes;
  int64_t graph_count;
  int64_t node_feature_width;
  int64_t config_width;
  uint64_t directory_offset;  // entries, then the string table
  uint64_t directory_bytes;
  uint64_t strings_offset;
  uint64_t strings_bytes;
  uint32_t directory_crc;  // CRC32 of [directory_offset, directory_offset + directory_bytes)
  uint8_t reserved[120];
  uint32_t header_crc;  // CRC32 of the 252 bytes before it
};
static_assert(sizeof(PackHeader) == 256, "pack header is 256 bytes");

// One per graph, 128 bytes, in the directory.
struct PackDirectoryEntry {
  uint64_t section_offset;  // graph arrays
  uint64_t section_bytes;
  uint64_t configs_offset;  // runtimes, then configuration values
  uint64_t configs_bytes;
  int64_t num_nodes;
  int64_t num_edges;
  int64_t num_splits;
  int64_t num_configurable;
  int64_t config_count;
  int64_t config_nodes;  // layout: configurable nodes per configuration; tile: 0
  uint64_t name_offset;  // within the string table
  uint64_t source_offset;
  uint32_t name_bytes;
  uint32_t source_bytes;
  uint32_t section_crc;
  uint32_t configs_crc;
  uint32_t flags;           // kPackHasRuntimes | kPackHasFailed
  uint32_t reserved;
  int64_t default_config;   // the default configuration's index, -1 when unknown
};
static_assert(sizeof(PackDirectoryEntry) == 128, "pack directory entry is 128 bytes");
static_assert(offsetof(PackDirectoryEntry, default_config) == 120, "default_config at byte 120");

// Offsets of the arrays relative to the start of a graph section.
struct GraphSectionLayout {
  uint64_t opcodes, node_features, edges, node_splits, configurable, end;
};
// Offsets relative to the start of a configuration block.
struct ConfigBlockLayout {
  uint64_t runtimes, failed, values, value_bytes, end;
};

// Both return false when a count is negative or a size overflows 64 bits.
bool graph_section_layout(const PackDirectoryEntry& entry, int64_t node_feature_width,
                          GraphSectionLayout* layout);
bool config_block_layout(const PackDirectoryEntry& entry, bool tile, int64_t config_width,
                         ConfigBlockLayout* layout);

uint64_t align_up(uint64_t offset);
// zlib's CRC32, continued from crc, for any length.
uint32_t crc32_update(uint32_t crc, const void* data, uint64_t bytes);

}  // namespace graphcost::io
