// The device table: the shipped GPUs, users' files, and the device columns a Kernel Tuner graph
// carries (tune's prior uses the same table: tests/tune/surrogate_test.cc).
#include "data/device_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"

namespace graphcost::data {
namespace {

TEST(DeviceTable, FindsTheSharedGpusByTheirKernelTunerNames) {
  const DeviceTable t = DeviceTable::builtin();
  const DeviceProperties* a100 = t.find("convolution_kernel_NVIDIA_A100-PCIE-40GB");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->name, "NVIDIA A100-PCIE-40GB");
  EXPECT_DOUBLE_EQ(a100->memory_bandwidth_gbs, 1555);
  const DeviceProperties* w6600 = t.find("AMD Radeon PRO W6600");
  ASSERT_NE(w6600, nullptr);
  EXPECT_EQ(w6600->vendor, "AMD");
  EXPECT_DOUBLE_EQ(w6600->compute_units, 28);
  ASSERT_NE(t.find("dedispersion_kernel_NVIDIA_RTX_A4000"), nullptr);
  ASSERT_NE(t.find("NVIDIA RTX A6000"), nullptr);
  EXPECT_EQ(t.find("NVIDIA H100"), nullptr);
  const std::vector<float> unknown = device_features(nullptr);
  ASSERT_EQ(unknown.size(), static_cast<size_t>(kDeviceFeatureCount));
  EXPECT_TRUE(std::isnan(unknown[0]));
  EXPECT_EQ(device_features(a100)[0], 1.0f);
  EXPECT_EQ(device_features(w6600)[0], 0.0f);
}

TEST(DeviceTable, UsersExtendAndReplaceEntriesAndBadFilesAreErrors) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("graphcost_devices_" + std::to_string(::getpid()) + ".json"))
                               .string();
  write_file_atomically(path, R"({"devices": [
    {"name": "NVIDIA H100 PCIe", "vendor": "NVIDIA", "memory_bandwidth_gbs": 2000,
     "compute_units": 114, "boost_clock_mhz": 1755, "l2_cache_mb": 50,
     "shared_memory_per_unit_kb": 228, "fp32_tflops": 51},
    {"name": "NVIDIA RTX A4000", "vendor": "NVIDIA", "memory_bandwidth_gbs": 1,
     "compute_units": 2, "boost_clock_mhz": 3, "l2_cache_mb": 4,
     "shared_memory_per_unit_kb": 5, "fp32_tflops": 6}]})");
  DeviceTable t = DeviceTable::builtin();
  const size_t before = t.devices().size();
  t.extend_from_file(path);
  EXPECT_EQ(t.devices().size(), before + 1);
  ASSERT_NE(t.find("kernel_NVIDIA_H100_PCIe"), nullptr);
  EXPECT_DOUBLE_EQ(t.find("NVIDIA RTX A4000")->memory_bandwidth_gbs, 1);
  write_file_atomically(path, R"({"devices": [{"name": "X", "compute_units": "many"}]})");
  try {
    t.extend_from_file(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("X.memory_bandwidth_gbs"), std::string::npos) << e.what();
  }
  write_file_atomically(path, "{");
  EXPECT_THROW(t.extend_from_file(path), Error);
  std::filesystem::remove(path);
}

// Values from devices.json, by hand: A100 has 1555 GB/s, 108 SMs, 1410 MHz, 40 MB L2, 164 KB
// shared memory per SM, 19.5 TFLOPS; log2 of each (python3: math.log2).
TEST(DeviceColumns, AShippedDeviceIsItsLog2Figures) {
  const DeviceTable t = DeviceTable::builtin();
  const std::vector<float> a100 = device_columns(*t.find("NVIDIA A100-PCIE-40GB"));
  ASSERT_EQ(a100.size(), static_cast<size_t>(kDeviceColumnCount));
  ASSERT_EQ(device_column_names().size(), static_cast<size_t>(kDeviceColumnCount));
  const std::vector<float> expected = {1, 10.602699f, 6.754888f, 10.461479f,
                                       5.321928f, 7.357552f, 4.285402f};
  for (int64_t c = 0; c < kDeviceColumnCount; ++c)
    EXPECT_NEAR(a100[c], expected[c], 1e-5) << device_column_names()[c];
  EXPECT_EQ(device_columns(*t.find("AMD Radeon PRO W6600"))[0], 0.0f);  // not NVIDIA
  DeviceProperties blank;  // a user's entry with zeros: 0, not -inf
  blank.vendor = "NVIDIA";
  EXPECT_EQ(device_columns(blank), (std::vector<float>{1, 0, 0, 0, 0, 0, 0}));
}

// The median of each column over the four shipped devices (A100, RTX A4000, RTX A6000, W6600):
// the mean of the middle two, e.g. bandwidth (log2 448 + log2 768) / 2 and L2 (log2 4 + log2 6) / 2.
TEST(DeviceColumns, AnUnknownDeviceGetsTheBuiltInMedians) {
  const std::vector<float> neutral = neutral_device_columns();
  const std::vector<float> expected = {1, 9.196159f, 5.988640f, 10.710556f,
                                       2.292481f, 6.643856f, 4.274218f};
  ASSERT_EQ(neutral.size(), expected.size());
  for (size_t c = 0; c < expected.size(); ++c)
    EXPECT_NEAR(neutral[c], expected[c], 1e-5) << device_column_names()[c];
}

}  // namespace
}  // namespace graphcost::data
