// GPU properties for transfer between devices: a small table shipped with the project
// (src/tune/devices.json, compiled in) that users extend with their own file, looked up by
// Kernel Tuner's device_name, so that a device no model was trained on is described by what it
// is (bandwidth, compute units, clock, caches, vendor) rather than by an untrained one-hot.
#pragma once

#include <string>
#include <vector>

namespace graphcost::tune {

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
  // The device whose name (letters and digits only, case ignored) is contained in `text` (a
  // device_name or a graph name such as "convolution_kernel_NVIDIA_A100-PCIE-40GB"); the
  // longest such name wins. nullptr when none matches.
  const DeviceProperties* find(const std::string& text) const;
  const std::vector<DeviceProperties>& devices() const { return devices_; }

 private:
  void add(const DeviceProperties& device);  // replaces an entry of the same name
  std::vector<DeviceProperties> devices_;
};

// The numeric description a model sees: vendor (1 NVIDIA, 0 otherwise), bandwidth, compute
// units, clock, L2, shared memory per unit, FP32 peak; all NaN (missing) for an unknown device.
std::vector<float> device_features(const DeviceProperties* device);
constexpr int64_t kDeviceFeatureCount = 7;

}  // namespace graphcost::tune
