#include "io/kernel_tuner.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/device_table.h"
#include "data/validate.h"
#include "io/collection_readers.h"

namespace graphcost::io {
namespace {

namespace fs = std::filesystem;

const std::string kShared = GRAPHCOST_SHARED_DATA;

// The device columns of the built-in table's A100 (1555 GB/s, 108 SMs, 1410 MHz, 40 MB L2,
// 164 KB shared memory per SM, 19.5 TFLOPS: python3 math.log2 of each) and of a device the table
// lacks (each column's median over the four shipped devices: tests/data/device_table_test.cc).
const std::vector<float> kA100 = {1, 10.602699f, 6.754888f, 10.461479f,
                                   5.321928f, 7.357552f, 4.285402f};
const std::vector<float> kNeutral = {1, 9.196159f, 5.988640f, 10.710556f,
                                     2.292481f, 6.643856f, 4.274218f};

// The node's features as the device's columns, then the given problem-size columns.
std::vector<float> features(const std::vector<float>& device, const std::vector<float>& sizes) {
  std::vector<float> out = device;
  out.insert(out.end(), sizes.begin(), sizes.end());
  return out;
}

// Each value within 1e-5 (the expected columns are decimal roundings of log2).
void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "column " << i;
}

// text with the first occurrence of from replaced by to (from must occur).
std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

class KernelTuner : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("graphcost_kernel_tuner_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write_text(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string write_gzip(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    return path;
  }
  // Expects reading path to fail with an Error naming path and key.
  void expect_error(const std::string& path, const std::string& key) {
    try {
      read_kernel_tuner_cache(path);
      FAIL() << "no error for " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), path) << e.what();
      EXPECT_EQ(e.key(), key) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }

  fs::path dir_;
};

// Two parameters: "block" (powers of two -> log2), "unroll" (0 and 3 -> as is) and a string
// "variant" (one-hot over a, b); three measured configurations, one failed.
const char* kSmallCache = R"({
  "device_name": "Test GPU", "kernel_name": "k", "problem_size": [1024, 1],
  "tune_params_keys": ["block", "unroll", "variant"],
  "tune_params": {"block": [32, 64], "unroll": [0, 3], "variant": ["a", "b"]},
  "objective": "time",
  "cache": {
    "64,3,b": {"block": 64, "unroll": 3, "variant": "b", "time": 2.5},
    "32,0,a": {"block": 32, "unroll": 0, "variant": "a", "time": "CompilationFailedConfig"},
    "32,3,a": {"block": 32, "unroll": 3, "variant": "a", "time": 4.0}
  }
})";

TEST_F(KernelTuner, EncodesParametersRuntimesAndFailures) {
  const std::string path = write_gzip("gpu.json.gz", kSmallCache);
  EXPECT_TRUE(is_kernel_tuner_cache(path));
  ::testing::internal::CaptureStderr();
  data::GraphRecord r = read_kernel_tuner_cache(path);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  data::validate_record(r);
  EXPECT_EQ(r.source, path);
  EXPECT_EQ(r.graph.name, "k_Test_GPU");
  EXPECT_EQ(r.graph.num_nodes, 1);
  EXPECT_EQ(r.graph.opcodes, (std::vector<int32_t>{0}));
  // "Test GPU" is no device of the table: the neutral columns, then log2 1024, log2 1.
  expect_near(r.graph.node_features, features(kNeutral, {10, 0}));
  EXPECT_EQ(warnings, "graphcost: warning: " + path +
                          ": device 'Test GPU' is not in the device table; its device columns are "
                          "the built-in table's medians (add it with --devices FILE)\n");
  EXPECT_EQ(r.configs.kind, data::ConfigKind::Tile);
  ASSERT_EQ(r.configs.count, 3);
  ASSERT_EQ(r.configs.width, 4);
  // File order; block log2, unroll as is, variant one-hot [a, b].
  EXPECT_EQ(r.configs.tile, (std::vector<float>{6, 3, 0, 1, /**/ 5, 0, 1, 0, /**/ 5, 3, 1, 0}));
  EXPECT_EQ(r.configs.runtimes, (std::vector<double>{2.5, 40.0, 4.0}));  // failed: 10 x 4.0
  EXPECT_EQ(r.configs.failed, (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(r.configs.default_config, -1);  // no space.json
}

TEST_F(KernelTuner, SpaceFileGivesOrderValuesAndDefault) {
  // Python-literal value lists as in the real space.json files, a value no cache measured
  // ("c") and a parameter order different from tune_params_keys.
  write_text("space.json", R"({"ConfigurationSpace": {"TuningParameters": [
    {"Name": "variant", "Type": "string", "Values": "['a', 'b', 'c']", "Default": "a"},
    {"Name": "block", "Type": "int", "Values": "[32, 64]", "Default": 32},
    {"Name": "unroll", "Type": "int", "Values": [0, 3], "Default": 3}]}})");
  data::GraphRecord r = read_kernel_tuner_cache(write_text("gpu.json", kSmallCache));
  ASSERT_EQ(r.configs.width, 5);
  EXPECT_EQ(r.configs.tile,
            (std::vector<float>{0, 1, 0, 6, 3, /**/ 1, 0, 0, 5, 0, /**/ 1, 0, 0, 5, 3}));
  EXPECT_EQ(r.configs.default_config, 2);  // a, 32, 3
  EXPECT_FALSE(is_kernel_tuner_cache((dir_ / "space.json").string()));
}

TEST_F(KernelTuner, FolderSharesOneLayoutAcrossDevices) {
  write_gzip("b.json.gz", kSmallCache);
  std::string other = replace_once(kSmallCache, "Test GPU", "NVIDIA A100-PCIE-40GB");
  other = replace_once(other, "\"unroll\": [0, 3]", "\"unroll\": [0, 5]");  // 5 is not measured
  other = replace_once(other, "\"variant\": [\"a\", \"b\"]", "\"variant\": [\"d\"]");
  write_gzip("a.json.gz", other);
  std::vector<data::GraphRecord> records = read_kernel_tuner_folder(dir_.string());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].graph.name, "k_NVIDIA_A100-PCIE-40GB");  // files in name order
  // Each cache its own device's columns, as when read alone.
  expect_near(records[0].graph.node_features, features(kA100, {10, 0}));
  expect_near(records[1].graph.node_features, features(kNeutral, {10, 0}));
  EXPECT_EQ(records[1].graph.node_features,
            read_kernel_tuner_cache((dir_ / "b.json.gz").string()).graph.node_features);
  // unroll as is (union 0, 5, 3); variant one-hot over the union in order of first sight:
  // d (a.json.gz's tune_params), then b and a (a.json.gz's measured configurations).
  ASSERT_EQ(records[1].configs.width, 5);
  EXPECT_EQ(records[1].configs.width, records[0].configs.width);
  EXPECT_EQ(records[1].configs.tile,
            (std::vector<float>{6, 3, 0, 1, 0, /**/ 5, 0, 0, 0, 1, /**/ 5, 3, 0, 0, 1}));
  EXPECT_TRUE(is_kernel_tuner_folder(dir_.string()));
}

TEST_F(KernelTuner, CorruptedInputsGiveOneLineErrors) {
  std::string gz;
  {
    std::ifstream in(write_gzip("whole.json.gz", kSmallCache), std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string truncated = write_text("truncated.json.gz", gz.substr(0, gz.size() / 2));
  expect_error(truncated, "");
  try {
    read_kernel_tuner_cache(truncated);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("decompress"), std::string::npos) << e.what();
  }
  expect_error(write_text("invalid.json", "{\"cache\": {\"1\": {\"time\": 1.0,}}"), "");
  expect_error(write_text("no_cache.json", replace_once(kSmallCache, "\"cache\"", "\"cachex\"")),
               "cache");
  expect_error(
      write_text("no_keys.json", replace_once(kSmallCache, "\"tune_params_keys\"", "\"keys\"")),
      "tune_params_keys");
  expect_error(write_text("missing.json", replace_once(kSmallCache, "\"unroll\": 0, ", "")),
               "cache[\"32,0,a\"].unroll");
  expect_error(write_text("no_time.json", replace_once(kSmallCache, ", \"time\": 4.0", "")),
               "cache[\"32,3,a\"].time");
  std::string all_failed = replace_once(kSmallCache, "2.5", "\"RuntimeFailedConfig\"");
  expect_error(write_text("all_failed.json", replace_once(all_failed, "4.0", "null")), "cache");
  write_text("space.json", "{\"ConfigurationSpace\": {}}");
  try {
    read_kernel_tuner_cache(write_text("with_bad_space.json", kSmallCache));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.key(), "ConfigurationSpace.TuningParameters") << e.what();
  }
  EXPECT_THROW(read_kernel_tuner_folder((dir_ / "absent").string()), Error);
}

std::string shared(const std::string& relative) { return kShared + "/kernel_tuner/" + relative; }

#define SKIP_WITHOUT(path) \
  if (!fs::exists(path)) GTEST_SKIP() << "shared data absent: " << (path)

int64_t count_failed(const data::GraphRecord& r) {
  int64_t n = 0;
  for (uint8_t f : r.configs.failed) n += f;
  return n;
}

TEST(KernelTunerShared, ConvolutionA100) {
  const std::string path = shared("convolution/A100.json.gz");
  SKIP_WITHOUT(path);
  data::GraphRecord r = read_kernel_tuner_cache(path);
  data::validate_record(r);
  EXPECT_EQ(r.graph.name, "convolution_kernel_NVIDIA_A100-PCIE-40GB");
  ASSERT_EQ(r.configs.count, 4362);
  ASSERT_EQ(r.configs.width, 10);  // 10 numeric parameters
  // Failed: 155 "RuntimeFailedConfig" + 6 "CompilationFailedConfig", from
  //   python3 -c "import json,gzip; c=json.load(gzip.open('A100.json.gz'))['cache'];
  //               print(sum(not isinstance(v['time'], (int, float)) for v in c.values()))"
  EXPECT_EQ(count_failed(r), 161);
  // Configuration 1000 in file order is "48,4,1,2,0,1,1,1,15,15": block_size_x as is (16..256
  // in steps of 16), block_size_y log2 (1..16 powers of two), tile sizes as is (1..4), read_only,
  // use_padding, use_shmem as is (0/1), use_cmem log2 (only 1), filter sizes as is (only 15).
  const float* c = r.configs.tile.data() + 1000 * 10;
  EXPECT_EQ(std::vector<float>(c, c + 10), (std::vector<float>{48, 2, 1, 2, 0, 1, 1, 0, 15, 15}));
  EXPECT_DOUBLE_EQ(r.configs.runtimes[1000], 1.1345600187778473);
  // Configuration 766 ("32,16,2,4,1,0,0,1,15,15") failed: 10 x the slowest time, 32.2256959...
  EXPECT_EQ(r.configs.failed[766], 1);
  EXPECT_DOUBLE_EQ(r.configs.runtimes[766], 10 * 32.22569590806961);
  // space.json's default "16,16,1,1,0,1,1,1,15,15" is configuration 386.
  EXPECT_EQ(r.configs.default_config, 386);
  expect_near(r.graph.node_features, features(kA100, {12, 12}));  // problem size 4096 x 4096
}

TEST(KernelTunerShared, ConvolutionFolder) {
  const std::string dir = shared("convolution");
  SKIP_WITHOUT(dir);
  std::vector<data::GraphRecord> records = read_kernel_tuner_folder(dir);
  ASSERT_EQ(records.size(), 4u);  // A100, A4000, A6000, W6600
  // Failed counts per device, computed as in ConvolutionA100.
  const std::vector<int64_t> failed = {161, 161, 473, 0};
  // Files A100, A4000, A6000, W6600: each its device's columns from the table, read in a folder
  // as alone (the A100's by hand above), the AMD card's first column 0.
  const data::DeviceTable table = data::DeviceTable::builtin();
  const std::vector<std::string> devices = {"NVIDIA A100-PCIE-40GB", "NVIDIA RTX A4000",
                                            "NVIDIA RTX A6000", "AMD Radeon PRO W6600"};
  expect_near(records[0].graph.node_features, features(kA100, {12, 12}));
  EXPECT_EQ(records[3].graph.node_features[0], 0.0f);
  for (size_t i = 0; i < records.size(); ++i) {
    data::validate_record(records[i]);
    EXPECT_EQ(records[i].configs.count, 4362);
    EXPECT_EQ(records[i].configs.width, 10);
    EXPECT_EQ(count_failed(records[i]), failed[i]) << records[i].source;
    ASSERT_EQ(records[i].graph.feature_width, 9);  // 7 device columns, 2 problem-size columns
    EXPECT_EQ(records[i].graph.node_features,
              features(data::device_columns(*table.find(devices[i])), {12, 12}))
        << records[i].source;
    EXPECT_EQ(records[i].configs.default_config, 386);
  }
}

TEST(KernelTunerShared, DedispersionA100) {
  const std::string path = shared("dedispersion/A100.json.gz");
  SKIP_WITHOUT(path);
  data::GraphRecord r = read_kernel_tuner_cache(path);
  data::validate_record(r);
  ASSERT_EQ(r.configs.count, 11130);
  ASSERT_EQ(r.configs.width, 8);
  EXPECT_TRUE(r.configs.failed.empty());  // every time is numeric
  // Configuration 2500 is "1,216,1,4,4,0,0,0": block_size_x log2 (1..32), block_size_y as is,
  // block_size_z log2 (only 1), tile sizes as is, strides as is (0/1), unroll as is (only 0).
  const float* c = r.configs.tile.data() + 2500 * 8;
  EXPECT_EQ(std::vector<float>(c, c + 8), (std::vector<float>{0, 216, 0, 4, 4, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(r.configs.runtimes[2500], 78.09596800804138);
  // The default (tile_size_x 1 with tile_stride_x 1) breaks a constraint: never measured.
  EXPECT_EQ(r.configs.default_config, -1);
  EXPECT_FLOAT_EQ(r.graph.node_features[7], static_cast<float>(std::log2(25000.0)));
}

TEST(KernelTunerShared, OpenCollectionOnAFolderAndAFile) {
  const std::string dir = shared("dedispersion");
  SKIP_WITHOUT(dir);
  data::LoadOptions options;
  options.exclude = {"dedispersion_kernel_NVIDIA_RTX_A4000"};
  options.prune_hops = 1;  // no effect on tile records
  auto c = io::open_collection(dir, data::CollectionId::parse("tile:xla"), "", options);
  EXPECT_EQ(c->id().str(), "tile:xla");
  ASSERT_EQ(c->size(), 3);
  EXPECT_EQ(c->graph(0).name, "dedispersion_kernel_NVIDIA_A100-PCIE-40GB");
  EXPECT_EQ(c->configs(2).count, 11130);  // no duplicate configurations to merge
  EXPECT_EQ(c->node_feature_width(), 10);  // 7 device columns + 3 problem size values
  EXPECT_EQ(c->config_width(), 8);

  data::LoadOptions from_data;
  from_data.kind_from_data = true;
  auto one = io::open_collection(shared("convolution/W6600.json.gz"), data::CollectionId{}, "",
                                   from_data);
  EXPECT_EQ(one->id().str(), "tile:xla");
  ASSERT_EQ(one->size(), 1);
  EXPECT_EQ(one->configs(0).failed, nullptr);  // the AMD card ran every configuration
  EXPECT_EQ(one->configs(0).default_config, 386);
  try {
    io::open_collection(dir, data::CollectionId::parse("layout:xla:default"), "", {});
    FAIL() << "a layout collection opened on Kernel Tuner caches";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), (dir + ": holds tile configurations, but collection "
                                  "layout:xla:default was asked").c_str());
  }
}

// --device-name names a cache whose device_name is empty (some published caches have ""), and
// a device table file adds devices: both through LoadOptions, as every command passes them.
TEST_F(KernelTuner, DeviceNameFillsAnEmptyNameAndDevicesFileAddsDevices) {
  const std::string unnamed =
      write_text("unnamed.json", replace_once(kSmallCache, "\"Test GPU\"", "\"\""));
  ::testing::internal::CaptureStderr();
  const data::GraphRecord alone = read_kernel_tuner_cache(unnamed);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "graphcost: warning: " + unnamed +
                ": device_name is empty; its device columns are the built-in table's medians "
                "(name the device with --device-name NAME)\n");
  expect_near(alone.graph.node_features, features(kNeutral, {10, 0}));
  EXPECT_EQ(alone.graph.name, "k_");

  data::LoadOptions options;
  options.device_name = "NVIDIA A100-PCIE-40GB";
  ::testing::internal::CaptureStderr();
  const data::GraphRecord named = read_kernel_tuner_cache(unnamed, options);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(named.graph.name, "k_NVIDIA_A100-PCIE-40GB");
  expect_near(named.graph.node_features, features(kA100, {10, 0}));
  // A cache that names its device keeps it.
  EXPECT_EQ(read_kernel_tuner_cache(write_text("gpu.json", kSmallCache), options).graph.name,
            "k_Test_GPU");

  // "Test GPU" from a file: 2^10 GB/s, 2^5 units, 2^11 MHz, 2^2 MB, 2^6 KB, 2^3 TFLOPS, AMD.
  const std::string table = (dir_ / "devices.json").string();
  write_file_atomically(table, R"({"devices": [{"name": "Test GPU", "vendor": "AMD",
    "memory_bandwidth_gbs": 1024, "compute_units": 32, "boost_clock_mhz": 2048,
    "l2_cache_mb": 4, "shared_memory_per_unit_kb": 64, "fp32_tflops": 8}]})");
  data::LoadOptions with_table;
  with_table.devices = table;
  ::testing::internal::CaptureStderr();
  const data::GraphRecord added = read_kernel_tuner_cache(dir_ / "gpu.json", with_table);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(added.graph.node_features, (std::vector<float>{0, 10, 5, 11, 2, 6, 3, 10, 0}));
  // The same through open_collection, which every command and the Python module go through.
  auto c = io::open_collection(dir_ / "gpu.json", data::CollectionId::parse("tile:xla"), "",
                               with_table);
  EXPECT_EQ(c->graph(0).node_features, added.graph.node_features);
  with_table.devices = (dir_ / "absent.json").string();
  EXPECT_THROW(read_kernel_tuner_cache(dir_ / "gpu.json", with_table), Error);
}

// #40: one linear search per key made reading quadratic in the number of parameters (64k took
// 43 s, 100k never finished). Not a benchmark: the bound is a hundred times what the linear
// reader needs, so only a reader of the old order fails it.
TEST_F(KernelTuner, AWideCacheReadsInLinearTime) {
  constexpr int kParameters = 100000;
  std::string keys, first, second;
  for (int k = 0; k < kParameters; ++k) {
    const std::string name = "p" + std::to_string(k);
    keys += (k ? "," : "") + ("\"" + name + "\"");
    first += "\"" + name + "\":" + std::to_string(k % 2 ? 2 : 4) + ",";
    second += "\"" + name + "\":" + std::to_string(k % 3 ? 2 : 8) + ",";
  }
  const std::string path = write_text(
      "wide.json", "{\"device_name\":\"G\",\"kernel_name\":\"w\",\"tune_params_keys\":[" + keys +
                       "],\"cache\":{\"a\":{" + first + "\"time\":1.5},\"b\":{" + second +
                       "\"time\":2.5}}}");
  const auto start = std::chrono::steady_clock::now();
  const data::GraphRecord record = read_kernel_tuner_cache(path);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 30.0);
  ASSERT_EQ(record.configs.width, kParameters);  // every parameter numeric: one column each
  ASSERT_EQ(record.configs.count, 2);
  // Powers of two are read as log2: parameter 3 is 2 (odd) then 8 (3 % 3 == 0).
  EXPECT_EQ(record.configs.tile[3], 1.0f);
  EXPECT_EQ(record.configs.tile[kParameters + 3], 3.0f);
  EXPECT_EQ(record.configs.tile[kParameters + 4], 1.0f);
  EXPECT_EQ(record.configs.runtimes[1], 2.5);
}

TEST_F(KernelTuner, NumbersOutOfRangeAndRepeatedKeysNameTheFile) {
  const std::string huge = write_text(
      "huge.json", replace_once(kSmallCache, "\"time\": 2.5", "\"time\": 1e309"));
  try {
    read_kernel_tuner_cache(huge);
    FAIL() << "no error for 1e309";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), huge);
    EXPECT_NE(std::string(e.what()).find("unreadable JSON: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1e309"), std::string::npos) << e.what();
  }
  const std::string twice = write_text(
      "twice.json", replace_once(kSmallCache, R"(["block", "unroll", "variant"])",
                                 R"(["block", "unroll", "block", "variant"])"));
  expect_error(twice, "tune_params_keys");
}

}  // namespace
}  // namespace graphcost::io
