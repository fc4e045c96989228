// GPU properties: a small table shipped with the project (src/data/devices.json, compiled in)
// that users extend with their own file (--devices FILE), looked up by Kernel Tuner's
// device_name, so that a device no model was trained on is described by what it is (bandwidth,
// compute units, clock, caches, vendor) rather than by an untrained one-hot. The Kernel Tuner
// reader gives every graph its device's columns (device_columns); tune's transfer prior its
// device's features (device_features).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphcost::data {

struct DeviceProperties {
  std::string name;  // Kernel Tuner's device_name, e.g. "NVIDIA A100-PCIE-40GB"
  std::string vendor;
  std::string architecture;
  double memory_bandwidth_gbs = 0;
  double compute_units = 0;  // SMs or CUs
  double boost_clock_mhz = 0;
  double l2_cache_mb = 0;
  double shared_memory_per_unit_kb = 0;
  double fp32_tflops = 0;
  std::string source;  // where the figures come from
};

class DeviceTable {
 public:
  // The table shipped with the project.
  static DeviceTable builtin();
  // Parses a table ({"devices": [...]}); a missing key or wrong type is an Error naming `where`
  // and the device.
  static DeviceTable parse(const std::string& json_text, const std::string& where);
  // Adds the entries of a file; an entry whose name is already known replaces it.
  void extend_from_file(const std::string& path);
  // The built-in table extended by the file `path` (none when empty).
  static DeviceTable with_file(const std::string& path);
  // The device whose name (letters and digits only, case ignored) is contained in `text` (a
  // device_name or a graph name such as "convolution_kernel_NVIDIA_A100-PCIE-40GB"); the
  // longest such name wins. nullptr when none matches.
  const DeviceProperties* find(const std::string& text) const;
  const std::vector<DeviceProperties>& devices() const { return devices_; }

 private:
  void add(const DeviceProperties& device);  // replaces an entry of the same name
  std::vector<DeviceProperties> devices_;
};

// tune's transfer prior (gradient-boosted trees): vendor (1 NVIDIA, 0 otherwise), bandwidth,
// compute units, clock, L2, shared memory per unit, FP32 peak as the table has them; all NaN
// (missing, which trees route on their own) for an unknown device.
std::vector<float> device_features(const DeviceProperties* device);
constexpr int64_t kDeviceFeatureCount = 7;

// The device columns of a Kernel Tuner graph (docs/kernel-tuner.md), in this order: 1 for an
// NVIDIA device else 0, then log2 of memory bandwidth (GB/s), compute units, boost clock (MHz),
// L2 cache (MB), shared memory per unit (KB) and FP32 peak (TFLOPS). A value that is not
// positive gives 0 (a user's file may lack a figure).
std::vector<float> device_columns(const DeviceProperties& device);
constexpr int64_t kDeviceColumnCount = 7;
// The columns' names, for documentation and messages: "nvidia", "log2_memory_bandwidth_gbs", ...
const std::vector<std::string>& device_column_names();
// The columns of a device missing from the table: each column's median over the built-in
// table's devices (fixed, whatever --devices adds), so an unknown device looks like a typical one.
std::vector<float> neutral_device_columns();

}  // namespace graphcost::data
