#include "io/pack_layout.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace graphcost::io {

namespace {
// Appends an array of count elements of element_bytes at the next aligned offset.
bool place(uint64_t* cursor, int64_t count, uint64_t element_bytes, uint64_t* start) {
  if (count < 0) return false;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), element_bytes, &bytes)) return false;
  if (*cursor > std::numeric_limits<uint64_t>::max() - kPackAlignment) return false;
  *start = align_up(*cursor);
  return !__builtin_add_overflow(*start, bytes, cursor);
}

bool checked_product(int64_t a, int64_t b, int64_t* out) {
  if (a < 0 || b < 0) return false;
  return !__builtin_mul_overflow(a, b, out);
}
}  // namespace

uint64_t align_up(uint64_t offset) {
  return (offset + kPackAlignment - 1) / kPackAlignment * kPackAlignment;
}

bool graph_section_layout(const PackDirectoryEntry& entry, int64_t node_feature_width,
                          GraphSectionLayout* layout) {
  int64_t features = 0, edge_ints = 0;
  if (!checked_product(entry.num_nodes, node_feature_width, &features)) return false;
  if (!checked_product(entry.num_edges, 2, &edge_ints)) return false;
  uint64_t cursor = 0;
  return place(&cursor, entry.num_nodes, 4, &layout->opcodes) &&
         place(&cursor, features, 4, &layout->node_features) &&
         place(&cursor, edge_ints, 4, &layout->edges) &&
         place(&cursor, entry.num_splits, 8, &layout->node_splits) &&
         place(&cursor, entry.num_configurable, 4, &layout->configurable) &&
         (layout->end = cursor, true);
}

bool config_block_layout(const PackDirectoryEntry& entry, bool tile, int64_t config_width,
                         ConfigBlockLayout* layout) {
  const int64_t runtimes = (entry.flags & kPackHasRuntimes) ? entry.config_count : 0;
  const int64_t failed = (entry.flags & kPackHasFailed) ? entry.config_count : 0;
  int64_t per_config = 0, values = 0;
  if (tile) {
    per_config = config_width;
  } else if (!checked_product(entry.config_nodes, config_width, &per_config)) {
    return false;
  }
  if (!checked_product(entry.config_count, per_config, &values)) return false;
  const uint64_t element = tile ? 4 : 1;
  uint64_t cursor = 0;
  if (!place(&cursor, runtimes, 8, &layout->runtimes)) return false;
  if (!place(&cursor, failed, 1, &layout->failed)) return false;
  if (!place(&cursor, values, element, &layout->values)) return false;
  layout->value_bytes = cursor - layout->values;
  layout->end = cursor;
  return true;
}

uint32_t crc32_update(uint32_t crc, const void* data, uint64_t bytes) {
  const auto* p = static_cast<const Bytef*>(data);
  // zlib takes a 32-bit length; feed it in chunks.
  while (bytes > 0) {
    const uInt chunk = static_cast<uInt>(std::min<uint64_t>(bytes, 1u << 30));
    crc = static_cast<uint32_t>(::crc32(crc, p, chunk));
    p += chunk;
    bytes -= chunk;
  }
  return crc;
}

}  // namespace graphcost::io
