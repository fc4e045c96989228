// What a pack keeps and what it refuses: failed-configuration flags and the default
// configuration survive packing (a Kernel Tuner cache, hand-made and real); an older format
// version is refused with a message to re-pack; a flipped byte anywhere in a configuration
// block, or a bad value written with valid checksums, stops the first touch of that graph with
// one line naming the pack.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "core/atomic_file.h"  // read_file
#include "core/error.h"
#include "io/kernel_tuner.h"
#include "io/pack.h"
#include "../data/test_records.h"
#include "temp_dir.h"

namespace graphcost::io {
namespace {

// Three measured configurations of a one-parameter kernel, the middle one failed; space.json
// makes the third the default.
const char* kCache = R"({
  "device_name": "GPU", "kernel_name": "k", "problem_size": [64],
  "tune_params_keys": ["block"], "tune_params": {"block": [32, 64, 128]}, "objective": "time",
  "cache": {
    "32": {"block": 32, "time": 3.0},
    "64": {"block": 64, "time": "RuntimeFailedConfig"},
    "128": {"block": 128, "time": 2.0}
  }
})";
const char* kSpace = R"({"ConfigurationSpace": {"TuningParameters": [
  {"Name": "block", "Type": "int", "Values": "[32, 64, 128]", "Default": 128}]}})";

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string pack_records(const std::string& path, const std::vector<data::GraphRecord>& records) {
  const data::CollectionId id{records[0].configs.kind, "xla",
                              records[0].configs.kind == data::ConfigKind::Tile ? "" : "default"};
  PackWriter writer(path, id, "train", id.kind, records[0].graph.feature_width,
                    records[0].configs.width);
  for (const auto& r : records) writer.add(r);
  writer.commit();
  return path;
}

// Expects f to throw one line that starts with prefix and contains fragment.
void expect_error(const std::function<void()>& f, const std::string& prefix,
                  const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no error (" << fragment << ")";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(PackFailures, HandMadeKernelTunerCacheKeepsFailuresAndDefault) {
  TempDir dir;
  write_text(dir.path() + "/space.json", kSpace);
  write_text(dir.path() + "/gpu.json", kCache);
  const data::GraphRecord record = read_kernel_tuner_cache(dir.path() + "/gpu.json");
  ASSERT_EQ(record.configs.failed, (std::vector<uint8_t>{0, 1, 0}));
  ASSERT_EQ(record.configs.default_config, 2);
  const std::string path = pack_records(dir.path() + "/k.gcpack", {record});
  PackCollection pack(path);
  const data::ConfigView v = pack.configs(0);
  ASSERT_EQ(v.count, 3);
  ASSERT_NE(v.failed, nullptr);
  EXPECT_EQ(std::vector<uint8_t>(v.failed, v.failed + 3), (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(v.default_config, 2);
  // The failed configuration's stand-in runtime is kept as the reader made it: 10 x 3.0.
  EXPECT_EQ(std::vector<double>(v.runtimes, v.runtimes + 3), (std::vector<double>{3.0, 30.0, 2.0}));
  EXPECT_NO_THROW(pack.verify());
}

TEST(PackFailures, RealConvolutionCacheKeepsItsFailures) {
  const std::string cache =
      std::string(GRAPHCOST_SHARED_DATA) + "/kernel_tuner/convolution/A100.json.gz";
  if (!std::filesystem::exists(cache)) GTEST_SKIP() << "shared data absent: " << cache;
  TempDir dir;
  const std::string path = pack_records(dir.path() + "/a100.gcpack", {read_kernel_tuner_cache(cache)});
  PackCollection pack(path);
  const data::ConfigView v = pack.configs(0);
  ASSERT_EQ(v.count, 4362);
  ASSERT_NE(v.failed, nullptr);
  // 161 failed and the default 386, as tests/io/kernel_tuner_test.cc establishes from the cache.
  int64_t failed = 0;
  for (int64_t j = 0; j < v.count; ++j) failed += v.failed[j];
  EXPECT_EQ(failed, 161);
  EXPECT_EQ(v.failed[766], 1);
  EXPECT_EQ(v.failed[1000], 0);
  EXPECT_EQ(v.default_config, 386);
}

TEST(PackVersion, OlderVersionIsRefusedWithAMessageToRePack) {
  TempDir dir;
  write_text(dir.path() + "/gpu.json", kCache);
  const std::string path =
      pack_records(dir.path() + "/v.gcpack", {read_kernel_tuner_cache(dir.path() + "/gpu.json")});
  std::string bytes = read_file(path);
  PackHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  header.version = 1;
  header.header_crc = crc32_update(0, &header, offsetof(PackHeader, header_crc));
  std::memcpy(&bytes[0], &header, sizeof(header));
  const std::string old = dir.path() + "/v1.gcpack";
  write_text(old, bytes);
  expect_error([&] { PackCollection pack(old); }, old + ": header: format version 1 is older",
               "re-pack it");
  header.version = 3;
  header.header_crc = crc32_update(0, &header, offsetof(PackHeader, header_crc));
  std::memcpy(&bytes[0], &header, sizeof(header));
  write_text(old, bytes);
  expect_error([&] { PackCollection pack(old); }, old + ": header: format version 3",
               "this build reads version 2");
}

// #40: a flipped byte in the version field said "format version 65538" instead of naming damage.
TEST(PackVersion, AFlippedVersionByteIsAChecksumError) {
  TempDir dir;
  write_text(dir.path() + "/gpu.json", kCache);
  const std::string path =
      pack_records(dir.path() + "/v.gcpack", {read_kernel_tuner_cache(dir.path() + "/gpu.json")});
  std::string bytes = read_file(path);
  bytes[offsetof(PackHeader, version) + 2] ^= 0x01;  // 2 -> 65538
  const std::string bad = dir.path() + "/flipped.gcpack";
  write_text(bad, bytes);
  expect_error([&] { PackCollection pack(bad); }, bad + ": header: checksum mismatch (stored ",
               "the header is damaged");
}

// 4 nodes, 2 configurable, 3 layout configurations of width 2 with runtimes 30, 20, 10.
data::GraphRecord layout_record() { return data::testing::small_layout_record(); }

class PackCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = pack_records(dir_.path() + "/small.gcpack", {layout_record()});
    bytes_ = read_file(path_);
    std::memcpy(&header_, bytes_.data(), sizeof(header_));
    std::memcpy(&entry_, bytes_.data() + header_.directory_offset, sizeof(entry_));
    ASSERT_TRUE(config_block_layout(entry_, false, 2, &block_));
  }
  // The pack with byte at (an offset in the configuration block) xor-ed with mask.
  std::string flipped(uint64_t at, uint8_t mask) {
    std::string copy = bytes_;
    copy[entry_.configs_offset + at] = static_cast<char>(copy[entry_.configs_offset + at] ^ mask);
    const std::string bad = dir_.path() + "/bad.gcpack";
    write_text(bad, copy);
    return bad;
  }
  // The same, with the block's checksum and the directory and header re-sealed, as a crafted
  // (or consistently corrupted) file would be: only the value checks can catch it.
  std::string flipped_and_resealed(uint64_t at, uint8_t mask) {
    std::string copy = read_file(flipped(at, mask));
    PackDirectoryEntry entry = entry_;
    entry.configs_crc = crc32_update(0, copy.data() + entry.configs_offset, entry.configs_bytes);
    std::memcpy(&copy[header_.directory_offset], &entry, sizeof(entry));
    PackHeader header = header_;
    header.directory_crc =
        crc32_update(0, copy.data() + header.directory_offset, header.directory_bytes);
    header.header_crc = crc32_update(0, &header, offsetof(PackHeader, header_crc));
    std::memcpy(&copy[0], &header, sizeof(header));
    const std::string bad = dir_.path() + "/resealed.gcpack";
    write_text(bad, copy);
    return bad;
  }

  TempDir dir_;
  std::string path_, bytes_;
  PackHeader header_;
  PackDirectoryEntry entry_;
  ConfigBlockLayout block_;
};

TEST_F(PackCorruption, FlippedByteAnywhereInTheBlockStopsTheFirstTouch) {
  // A runtime's low byte, a layout value, and a padding byte between runtimes and values.
  const uint64_t runtime_byte = block_.runtimes + 8 * 1;
  const uint64_t layout_byte = block_.values + 5;
  const uint64_t padding_byte = block_.runtimes + 8 * 3 + 1;
  ASSERT_LT(padding_byte, block_.values);
  for (uint64_t at : {runtime_byte, layout_byte, padding_byte}) {
    const std::string bad = flipped(at, 0x01);
    PackCollection pack(bad);  // opening reads no configuration block
    expect_error([&] { pack.configs(0); }, bad + ": graph small: ",
                 "configuration block checksum mismatch");
    expect_error([&] { pack.graph(0); }, bad + ": graph small: ",
                 "configuration block checksum mismatch");
  }
}

TEST_F(PackCorruption, ResealedBadValuesAreCaughtByRecordValidation) {
  // Runtime 1 (20.0 = 0x4034000000000000) with its sign bit set: -20.
  std::string bad = flipped_and_resealed(block_.runtimes + 8 * 1 + 7, 0x80);
  expect_error([&] { PackCollection(bad).configs(0); }, bad + ": graph small: config_runtime: ",
               "configuration 1 has runtime -20.000000 (must be finite and positive)");
  // Layout value 5 of configuration 1 (byte 4 + 1 = 5: -1) becomes -1 ^ 0x10 = -17.
  bad = flipped_and_resealed(block_.values + 5, 0x10);
  expect_error([&] { PackCollection(bad).graph(0); }, bad + ": graph small: node_config_feat: ",
               "configuration 1, configurable node 0 has layout value -17 (must be in [-1, 5])");
  // Configuration 2's last value, 0, becomes 0 ^ 0x08 = 8.
  bad = flipped_and_resealed(block_.values + 11, 0x08);
  expect_error([&] { PackCollection(bad).graph(0); }, bad + ": graph small: node_config_feat: ",
               "configuration 2, configurable node 1 has layout value 8");
}

TEST(PackValidation, PackGraphsGoThroughRecordValidation) {
  // Written with valid checksums (the writer stores what it is given); the reader's first
  // touch applies the checks an npz graph gets on load.
  TempDir dir;
  data::GraphRecord r = layout_record();
  r.configs.runtimes[2] = std::numeric_limits<double>::infinity();
  std::string path = pack_records(dir.path() + "/inf.gcpack", {r});
  expect_error([&] { PackCollection(path).configs(0); }, path + ": graph small: config_runtime: ",
               "configuration 2 has runtime inf");
  r.configs.runtimes[2] = std::nan("");
  path = pack_records(dir.path() + "/nan.gcpack", {r});
  expect_error([&] { PackCollection(path).configs(0); }, path + ": graph small: config_runtime: ",
               "configuration 2 has runtime nan");
  r = layout_record();
  r.graph.node_splits = {3, 1};
  path = pack_records(dir.path() + "/splits.gcpack", {r});
  expect_error([&] { PackCollection(path).graph(0); }, path + ": graph small: node_splits: ",
               "splits not ascending");
  r = layout_record();
  r.configs.failed = {0, 2, 0};
  path = pack_records(dir.path() + "/flags.gcpack", {r});
  expect_error([&] { PackCollection(path).configs(0); }, path + ": graph small: failed: ",
               "configuration 1 has flag 2 (must be 0 or 1)");
  // A good graph is unaffected.
  path = pack_records(dir.path() + "/good.gcpack", {layout_record()});
  EXPECT_EQ(PackCollection(path).configs(0).count, 3);
}

}  // namespace
}  // namespace graphcost::io
