#include "io/pack.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "core/atomic_file.h"  // read_file
#include "core/error.h"
#include "data/collection.h"
#include "io/collection_readers.h"

namespace graphcost::io {
namespace {

std::string temp_dir() {
  auto dir =
      std::filesystem::temp_directory_path() / ("graphcost_pack_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

// A random DAG-like graph with its configurations; layout when nodes_per_config > 0.
data::GraphRecord make_record(std::mt19937& rng, const std::string& name, data::ConfigKind kind,
                              int64_t nodes, int64_t configs, bool runtimes) {
  const int64_t feature_width = 5, config_width = kind == data::ConfigKind::Tile ? 7 : 3;
  data::GraphRecord r;
  r.source = "/data/" + name + ".npz";
  data::Graph& g = r.graph;
  g.name = name;
  g.num_nodes = nodes;
  g.feature_width = feature_width;
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  for (int64_t v = 0; v < nodes; ++v) {
    g.opcodes.push_back(static_cast<int32_t>(rng() % 120));
    for (int64_t f = 0; f < feature_width; ++f) g.node_features.push_back(real(rng));
    if (v > 0) {
      for (int k = 0; k < 2; ++k) {
        g.edges.push_back(static_cast<int32_t>(v));
        g.edges.push_back(static_cast<int32_t>(rng() % v));
      }
    }
  }
  g.node_splits = {0, nodes / 2};
  data::ConfigTable& t = r.configs;
  t.kind = kind;
  t.count = configs;
  t.width = config_width;
  if (kind == data::ConfigKind::Layout) {
    for (int64_t v = 0; v < nodes; v += 3) g.configurable_nodes.push_back(static_cast<int32_t>(v));
    t.nodes = static_cast<int64_t>(g.configurable_nodes.size());
    for (int64_t i = 0; i < configs * t.nodes * config_width; ++i)
      t.layout.push_back(static_cast<int8_t>(rng() % 7) - 1);
  } else {
    for (int64_t i = 0; i < configs * config_width; ++i) t.tile.push_back(real(rng));
  }
  if (runtimes) {
    for (int64_t j = 0; j < configs; ++j) t.runtimes.push_back(1e-3 * (1 + rng() % 100000));
  }
  g.build_adjacency();
  return r;
}

std::vector<data::GraphRecord> make_records(data::ConfigKind kind) {
  std::mt19937 rng(42);
  std::vector<data::GraphRecord> records;
  records.push_back(make_record(rng, "alpha", kind, 40, 17, true));
  records.push_back(make_record(rng, "beta", kind, 7, 5, false));
  records.push_back(make_record(rng, "gamma", kind, 123, 33, true));
  // Failed measurements and a known default configuration on alpha, a default alone on beta.
  for (int64_t j = 0; j < 17; ++j) records[0].configs.failed.push_back(j % 5 == 2 ? 1 : 0);
  records[0].configs.default_config = 3;
  records[1].configs.default_config = 0;
  return records;
}

data::CollectionId layout_id() { return {data::ConfigKind::Layout, "xla", "random"}; }
data::CollectionId tile_id() { return {data::ConfigKind::Tile, "xla", ""}; }

std::string write_records(const std::string& path, const data::CollectionId& id,
                          const std::vector<data::GraphRecord>& records) {
  PackWriter writer(path, id, "valid", id.kind, records[0].graph.feature_width,
                    records[0].configs.width);
  for (const auto& r : records) writer.add(r);
  writer.commit();
  EXPECT_EQ(writer.bytes(), std::filesystem::file_size(path));
  return path;
}

void expect_same_csr(const data::Csr& a, const data::Csr& b) {
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.indices, b.indices);
}

void expect_round_trip(const PackCollection& pack, const std::vector<data::GraphRecord>& records) {
  ASSERT_EQ(pack.size(), static_cast<int64_t>(records.size()));
  for (int64_t g = 0; g < pack.size(); ++g) {
    const data::GraphRecord& r = records[g];
    const data::Graph& got = pack.graph(g);
    EXPECT_EQ(got.name, r.graph.name);
    EXPECT_EQ(pack.source(g), r.source);
    EXPECT_EQ(got.num_nodes, r.graph.num_nodes);
    EXPECT_EQ(got.feature_width, r.graph.feature_width);
    EXPECT_EQ(got.opcodes, r.graph.opcodes);
    EXPECT_EQ(got.node_features, r.graph.node_features);
    EXPECT_EQ(got.edges, r.graph.edges);
    EXPECT_EQ(got.node_splits, r.graph.node_splits);
    EXPECT_EQ(got.configurable_nodes, r.graph.configurable_nodes);
    expect_same_csr(got.operands, r.graph.operands);
    expect_same_csr(got.users, r.graph.users);
    const data::ConfigView v = pack.configs(g);
    const data::ConfigTable& t = r.configs;
    EXPECT_EQ(v.kind, t.kind);
    EXPECT_EQ(v.count, t.count);
    EXPECT_EQ(v.nodes, t.kind == data::ConfigKind::Tile ? 0 : t.nodes);
    EXPECT_EQ(v.width, t.width);
    if (t.kind == data::ConfigKind::Tile) {
      ASSERT_NE(v.tile, nullptr);
      EXPECT_EQ(std::vector<float>(v.tile, v.tile + v.count * v.width), t.tile);
    } else {
      ASSERT_NE(v.layout, nullptr);
      EXPECT_EQ(std::vector<int8_t>(v.layout, v.layout + v.count * v.nodes * v.width), t.layout);
    }
    EXPECT_EQ(v.default_config, t.default_config);
    EXPECT_EQ(v.failed != nullptr, !t.failed.empty());
    if (v.failed != nullptr) {
      EXPECT_EQ(std::vector<uint8_t>(v.failed, v.failed + v.count), t.failed);
    }
    EXPECT_EQ(v.has_runtimes(), !t.runtimes.empty());
    if (v.has_runtimes()) {
      EXPECT_EQ(std::vector<double>(v.runtimes, v.runtimes + v.count), t.runtimes);
    }
  }
}

TEST(Pack, LayoutRoundTripKeepsEveryField) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string path = write_records(temp_dir() + "/layout.gcpack", layout_id(), records);
  PackCollection pack(path);
  EXPECT_EQ(pack.id().kind, data::ConfigKind::Layout);
  EXPECT_EQ(pack.id().space, "xla");
  EXPECT_EQ(pack.id().search, "random");
  EXPECT_EQ(pack.split(), "valid");
  EXPECT_EQ(pack.pack_node_feature_width(), 5);
  EXPECT_EQ(pack.pack_config_width(), 3);
  EXPECT_EQ(pack.total_configurations(), 17 + 5 + 33);
  expect_round_trip(pack, records);
  pack.verify();
  verify_pack(path);
}

// A pack is one split: asked for another, it is an error, as a split folder is.
TEST(Pack, AskedForAnotherSplitIsAnError) {
  const std::string path =
      write_records(temp_dir() + "/split.gcpack", layout_id(), make_records(data::ConfigKind::Layout));
  EXPECT_EQ(io::open_collection(path, layout_id(), "valid", {})->size(), 3);
  EXPECT_EQ(io::open_collection(path, layout_id(), "", {})->size(), 3);
  try {
    io::open_collection(path, layout_id(), "train", {});
    ADD_FAILURE() << "a valid pack was read as the train split";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": is a pack of split valid, but split train was asked "
                                            "(give the pack of that split)");
  }
}

// exclude names graphs of a pack as it names file stems in a folder (it used to be ignored).
TEST(Pack, ExcludeLeavesOutTheNamedGraphs) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string path = write_records(temp_dir() + "/exclude.gcpack", layout_id(), records);
  data::LoadOptions options;
  options.exclude = {records[1].graph.name, "not_in_the_pack"};
  const auto kept = io::open_collection(path, layout_id(), "valid", options);
  ASSERT_EQ(kept->size(), 2);
  EXPECT_EQ(kept->graph(0).name, records[0].graph.name);
  EXPECT_EQ(kept->graph(1).name, records[2].graph.name);
  EXPECT_EQ(kept->configs(1).count, records[2].configs.count);
  EXPECT_EQ(kept->split(), "valid");
  options.exclude = {records[0].graph.name, records[1].graph.name, records[2].graph.name};
  try {
    io::open_collection(path, layout_id(), "valid", options);
    ADD_FAILURE() << "a pack with every graph excluded was opened";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": every graph of the pack is excluded");
  }
}

TEST(Pack, TileRoundTripKeepsEveryField) {
  const auto records = make_records(data::ConfigKind::Tile);
  const std::string path = write_records(temp_dir() + "/tile.gcpack", tile_id(), records);
  PackCollection pack(path);
  EXPECT_EQ(pack.id().kind, data::ConfigKind::Tile);
  EXPECT_EQ(pack.id().search, "");
  expect_round_trip(pack, records);
  verify_pack(path);
}

TEST(Pack, RepackingAPackGivesTheSameBytes) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string first = write_records(temp_dir() + "/first.gcpack", layout_id(), records);
  const std::string second = temp_dir() + "/second.gcpack";
  {
    PackCollection pack(first);
    write_pack(second, pack);
  }
  EXPECT_EQ(read_file(first), read_file(second));
}

TEST(Pack, ConfigurationsAreAlignedAndAddressedInPlace) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string path = write_records(temp_dir() + "/o1.gcpack", layout_id(), records);
  PackCollection pack(path);
  for (int64_t g = 0; g < pack.size(); ++g) {
    const data::ConfigView v = pack.configs(g);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.layout) % kPackAlignment, 0u);
    if (v.runtimes) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(v.runtimes) % kPackAlignment, 0u);
    }
    // Two calls give the same pointers: the view is the mapping, not a copy.
    EXPECT_EQ(pack.configs(g).layout, v.layout);
    const int64_t j = v.count - 1;
    const int64_t stride = v.nodes * v.width;
    EXPECT_EQ(std::vector<int8_t>(v.layout_config(j), v.layout_config(j) + stride),
              std::vector<int8_t>(records[g].configs.layout.begin() + j * stride,
                                  records[g].configs.layout.begin() + (j + 1) * stride));
  }
}

TEST(Pack, GraphIsMaterialisedOnceAcrossThreads) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string path = write_records(temp_dir() + "/threads.gcpack", layout_id(), records);
  PackCollection pack(path);
  std::vector<const data::Graph*> seen(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] { seen[i] = &pack.graph(2); });
  for (auto& t : threads) t.join();
  for (const auto* g : seen) EXPECT_EQ(g, seen[0]);
  EXPECT_EQ(seen[0]->opcodes, records[2].graph.opcodes);
}

// A plain write: these tests write thousands of small files, and atomic writes fsync each.
void write_plain(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  ASSERT_TRUE(out.good()) << path;
}

// Writes content to path and expects opening it to fail with an Error naming path.
void expect_open_error(const std::string& path, const std::string& content,
                       const std::string& fragment) {
  write_plain(path, content);
  try {
    PackCollection pack(path);
    ADD_FAILURE() << "opened a bad pack (" << fragment << ")";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Pack, TruncatedFileIsAnErrorAtEveryLength) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string bytes =
      read_file(write_records(temp_dir() + "/whole.gcpack", layout_id(), records));
  const std::string cut = temp_dir() + "/cut.gcpack";
  expect_open_error(cut, "", "truncated pack");
  expect_open_error(cut, bytes.substr(0, 10), "truncated pack");
  expect_open_error(cut, bytes.substr(0, 255), "truncated pack");
  for (size_t length = 256; length < bytes.size(); length += 37) {
    expect_open_error(cut, bytes.substr(0, length), "truncated");
  }
  expect_open_error(cut, bytes.substr(0, bytes.size() - 1), "truncated");
}

TEST(Pack, AnyFlippedByteInHeaderOrDirectoryIsAnError) {
  const auto records = make_records(data::ConfigKind::Tile);
  const std::string path = write_records(temp_dir() + "/flip.gcpack", tile_id(), records);
  const std::string bytes = read_file(path);
  PackHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  const std::string bad = temp_dir() + "/flipped.gcpack";
  for (size_t at = 6; at < sizeof(PackHeader); ++at) {
    std::string copy = bytes;
    copy[at] ^= 0x10;
    expect_open_error(bad, copy, "");
  }
  for (uint64_t at = header.directory_offset; at < header.directory_offset + header.directory_bytes;
       at += 3) {
    std::string copy = bytes;
    copy[at] ^= 0x01;
    expect_open_error(bad, copy, "directory");
  }
}

// Re-seals a modified header and directory with fresh checksums, as a crafted file would.
std::string reseal(std::string bytes) {
  PackHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (header.directory_offset < bytes.size() &&
      header.directory_bytes <= bytes.size() - header.directory_offset) {
    header.directory_crc =
        crc32_update(0, bytes.data() + header.directory_offset, header.directory_bytes);
  }
  header.header_crc = crc32_update(0, &header, offsetof(PackHeader, header_crc));
  std::memcpy(&bytes[0], &header, sizeof(header));
  return bytes;
}

TEST(Pack, SizesAreBoundsCheckedEvenWithValidChecksums) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string path = write_records(temp_dir() + "/crafted.gcpack", layout_id(), records);
  const std::string bytes = read_file(path);
  PackHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  const std::string bad = temp_dir() + "/crafted_bad.gcpack";
  auto entry_field = [&](std::string copy, size_t graph, size_t field_offset, int64_t value) {
    std::memcpy(&copy[header.directory_offset + graph * sizeof(PackDirectoryEntry) + field_offset],
                &value, sizeof(value));
    return reseal(copy);
  };
  // More configurations than the block holds; a block running past the end of the file.
  expect_open_error(bad, entry_field(bytes, 1, offsetof(PackDirectoryEntry, config_count), 18),
                    "graph beta: configuration block");
  expect_open_error(bad,
                    entry_field(bytes, 2, offsetof(PackDirectoryEntry, configs_offset),
                                static_cast<int64_t>(bytes.size())),
                    "graph gamma: configuration block");
  // Counts whose sizes overflow 64 bits.
  expect_open_error(bad,
                    entry_field(bytes, 0, offsetof(PackDirectoryEntry, num_nodes), INT64_MAX / 2),
                    "graph alpha: section");
  expect_open_error(bad, entry_field(bytes, 0, offsetof(PackDirectoryEntry, num_edges), -1),
                    "graph alpha: section");
  // Names pointing outside the string table.
  expect_open_error(bad, entry_field(bytes, 0, offsetof(PackDirectoryEntry, name_offset), 1 << 20),
                    "name outside the string table");
  // A header claiming more graphs or a larger string table than the file holds.
  PackHeader big = header;
  big.graph_count = 1 << 30;
  std::string copy = bytes;
  std::memcpy(&copy[0], &big, sizeof(big));
  expect_open_error(bad, reseal(copy), "directory");
  big = header;
  big.strings_bytes = UINT64_MAX - 100;
  std::memcpy(&copy[0], &big, sizeof(big));
  expect_open_error(bad, reseal(copy), "directory");
}

TEST(Pack, WrongMagicIsAnError) {
  const auto records = make_records(data::ConfigKind::Tile);
  const std::string path = write_records(temp_dir() + "/magic.gcpack", tile_id(), records);
  EXPECT_TRUE(is_pack_file(path));
  std::string bytes = read_file(path);
  bytes[0] = 'P';
  const std::string bad = temp_dir() + "/nomagic.gcpack";
  expect_open_error(bad, bytes, "not a pack file");
  EXPECT_FALSE(is_pack_file(bad));
  EXPECT_FALSE(is_pack_file(temp_dir() + "/missing.gcpack"));
  EXPECT_THROW(PackCollection(temp_dir() + "/missing.gcpack"), Error);
}

TEST(Pack, FlippedConfigByteIsFoundWhenTheGraphIsFirstTouched) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string path = write_records(temp_dir() + "/cfg.gcpack", layout_id(), records);
  std::string bytes = read_file(path);
  PackDirectoryEntry entry;
  std::memcpy(&entry,
              bytes.data() + reinterpret_cast<const PackHeader*>(bytes.data())->directory_offset +
                  sizeof(PackDirectoryEntry),
              sizeof(entry));
  bytes[entry.configs_offset + entry.configs_bytes - 1] ^= 0x04;
  const std::string bad = temp_dir() + "/cfgbad.gcpack";
  write_plain(bad, bytes);
  // Opening does not read configuration blocks, and the other graphs stay readable.
  PackCollection pack(bad);
  EXPECT_EQ(pack.graph(0).opcodes, records[0].graph.opcodes);
  EXPECT_EQ(pack.configs(2).count, records[2].configs.count);
  EXPECT_NO_THROW(pack.verify(0));
  EXPECT_NO_THROW(pack.verify(2));
  const std::string expected = bad + ": graph beta: configuration block checksum mismatch";
  for (int touch = 0; touch < 2; ++touch) {  // through graph() and through configs()
    try {
      if (touch == 0) pack.graph(1);
      if (touch == 1) pack.configs(1);
      ADD_FAILURE() << "first touch missed a corrupted configuration block";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    }
  }
  try {
    pack.verify();
    ADD_FAILURE() << "verify() missed a corrupted configuration block";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
  }
  EXPECT_THROW(verify_pack(bad), Error);
}

TEST(Pack, FlippedGraphByteIsFoundWhenTheGraphLoads) {
  const auto records = make_records(data::ConfigKind::Layout);
  const std::string path = write_records(temp_dir() + "/sec.gcpack", layout_id(), records);
  std::string bytes = read_file(path);
  PackDirectoryEntry entry;
  std::memcpy(&entry,
              bytes.data() + reinterpret_cast<const PackHeader*>(bytes.data())->directory_offset,
              sizeof(entry));
  bytes[entry.section_offset + 3] ^= 0x40;
  const std::string bad = temp_dir() + "/secbad.gcpack";
  write_plain(bad, bytes);
  PackCollection pack(bad);
  EXPECT_NO_THROW(pack.graph(2));
  for (int attempt = 0; attempt < 2; ++attempt) {  // the failure is not cached as success
    try {
      pack.graph(0);
      ADD_FAILURE() << "loaded a corrupted graph section";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("graph alpha: graph section checksum mismatch"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Pack, EmptyCollectionIsAnErrorAndLeavesNoFile) {
  const std::string path = temp_dir() + "/empty.gcpack";
  std::filesystem::remove(path);
  {
    PackWriter writer(path, layout_id(), "train", data::ConfigKind::Layout, 5, 3);
    try {
      writer.commit();
      ADD_FAILURE() << "committed an empty pack";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("empty collection"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& f : std::filesystem::directory_iterator(temp_dir())) {
    EXPECT_EQ(f.path().filename().string().find("empty.gcpack.tmp"), std::string::npos);
  }
}

TEST(Pack, RecordThatDisagreesWithThePackIsAnError) {
  auto records = make_records(data::ConfigKind::Layout);
  PackWriter writer(temp_dir() + "/mismatch.gcpack", layout_id(), "train", data::ConfigKind::Layout,
                    5, 3);
  records[0].graph.feature_width = 6;
  EXPECT_THROW(writer.add(records[0]), Error);
  records[1].configs.nodes += 1;
  EXPECT_THROW(writer.add(records[1]), Error);
  records[2].configs.kind = data::ConfigKind::Tile;
  EXPECT_THROW(writer.add(records[2]), Error);
  EXPECT_EQ(writer.graphs(), 0);
}

}  // namespace
}  // namespace graphcost::io
