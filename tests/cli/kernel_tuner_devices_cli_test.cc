// A model trained on a folder of Kernel Tuner caches scores a cache of a device absent from that
// folder (#37): every cache carries its device's properties (data/device_table.h), not a one-hot
// over the folder's devices. eval and predict here; serve in tests/serve, Python in
// tests/python/test_model.py.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/atomic_file.h"
#include "kernel_tuner_caches.h"
#include "run_graphcost.h"

namespace graphcost {
namespace {

namespace fs = std::filesystem;
using testing::run_graphcost;
using testing::Streams;
using testing::write_device_cache;

class KernelTunerDevicesCli : public ::testing::Test {
 protected:
  // One tiny run for the suite, trained on the A100 and the RTX A4000; the RTX A6000, a cache
  // without a device name and a device the table lacks are scored.
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_kt_devices_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "train");
    fs::create_directories(root_ / "other");
    write_device_cache(path("train/a100.json"), "NVIDIA A100-PCIE-40GB", 1.0, 5.0);
    write_device_cache(path("train/a4000.json"), "NVIDIA RTX A4000", 2.0, 6.0);
    write_device_cache(path("other/a6000.json"), "NVIDIA RTX A6000", 1.5, 5.5);
    write_device_cache(path("other/unnamed.json"), "", 1.5, 5.5);
    write_device_cache(path("other/h100.json"), "NVIDIA H100 PCIe", 0.5, 7.0);
    auto [status, output] =
        run_graphcost("train --data " + path("train") +
                      " --collection tile:xla --valid-split '' --iterations 3 --graphs-per-batch 2"
                      " --slate-size 8 --hidden 8 8 --threads 1 --out " + path("run"))
            .pair();
    ASSERT_EQ(status, 0) << output;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static std::string path(const std::string& relative) { return (root_ / relative).string(); }

  // predict's scores of one cache (the only graph of its scores file), with extra flags.
  static nlohmann::json predict_scores(const std::string& cache, const std::string& extra,
                                       std::string* output) {
    const std::string scores = path("scores.json");
    fs::remove(scores);
    auto result = run_graphcost("predict --model " + path("run") + " --data " + cache +
                                " --split '' --threads 1 --out " + path("submission.csv") +
                                " --scores " + scores + extra);
    *output = result.output;
    EXPECT_EQ(result.status, 0) << result.output;
    if (result.status != 0) return nullptr;
    return nlohmann::json::parse(read_file(scores));
  }

  static inline fs::path root_;
};

TEST_F(KernelTunerDevicesCli, EvalAndPredictScoreADeviceAbsentFromTheTrainingFolder) {
  std::string output;
  const nlohmann::json scores = predict_scores(path("other/a6000.json"), "", &output);
  ASSERT_TRUE(scores.is_object()) << output;
  EXPECT_EQ(output.find("warning"), std::string::npos) << output;  // a shipped device
  ASSERT_EQ(scores.size(), 1u) << scores.dump();
  EXPECT_EQ(scores.begin().key(), "toy_NVIDIA_RTX_A6000");
  EXPECT_EQ(scores.begin().value().size(), 15u);  // 5 block sizes x 3 unrolls

  auto eval = run_graphcost("eval --model " + path("run") + " --data " + path("other/a6000.json") +
                                " --split '' --threads 1 --json",
                            Streams::Stdout);
  ASSERT_EQ(eval.status, 0) << eval.output;
  const nlohmann::json table = nlohmann::json::parse(eval.output);
  EXPECT_EQ(table.at("graph_count"), 1);
  EXPECT_EQ(table.at("graphs").at(0).at("name"), "toy_NVIDIA_RTX_A6000");
  const double tau = table.at("kendall_tau").get<double>();
  EXPECT_GE(tau, -1.0);
  EXPECT_LE(tau, 1.0);
}

TEST_F(KernelTunerDevicesCli, DeviceNameNamesACacheWithoutOne) {
  std::string named_output, unnamed_output, plain_output;
  const nlohmann::json named = predict_scores(path("other/a6000.json"), "", &named_output);
  const nlohmann::json unnamed = predict_scores(
      path("other/unnamed.json"), " --device-name 'NVIDIA RTX A6000'", &unnamed_output);
  // The same measurements under the name given: the same graph name, the same scores.
  EXPECT_EQ(unnamed, named) << unnamed_output;
  EXPECT_EQ(unnamed_output.find("warning"), std::string::npos) << unnamed_output;
  // Without --device-name: one warning line naming the file, and the neutral device columns.
  const nlohmann::json plain = predict_scores(path("other/unnamed.json"), "", &plain_output);
  EXPECT_EQ(plain.begin().key(), "toy_");
  EXPECT_NE(plain_output.find("graphcost: warning: " + path("other/unnamed.json") +
                              ": device_name is empty; its device columns are the built-in "
                              "table's medians (name the device with --device-name NAME)\n"),
            std::string::npos)
      << plain_output;
}

TEST_F(KernelTunerDevicesCli, AnUnknownDeviceIsOneWarningAndDevicesFileAddsIt) {
  std::string output;
  predict_scores(path("other/h100.json"), "", &output);
  const std::string warning = "graphcost: warning: " + path("other/h100.json") +
                              ": device 'NVIDIA H100 PCIe' is not in the device table; its "
                              "device columns are the built-in table's medians (add it with "
                              "--devices FILE)\n";
  const size_t at = output.find(warning);
  ASSERT_NE(at, std::string::npos) << output;
  EXPECT_EQ(output.find("warning", at + warning.size()), std::string::npos)
      << "one warning line only\n"
      << output;

  write_file_atomically(path("devices.json"), R"({"devices": [{"name": "NVIDIA H100 PCIe",
    "vendor": "NVIDIA", "memory_bandwidth_gbs": 2000, "compute_units": 114,
    "boost_clock_mhz": 1755, "l2_cache_mb": 50, "shared_memory_per_unit_kb": 228,
    "fp32_tflops": 51}]})");
  predict_scores(path("other/h100.json"), " --devices " + path("devices.json"), &output);
  EXPECT_EQ(output.find("warning"), std::string::npos) << output;
  auto eval = run_graphcost("eval --model " + path("run") + " --data " + path("other/h100.json") +
                            " --split '' --threads 1 --devices " + path("devices.json"));
  EXPECT_EQ(eval.status, 0) << eval.output;
  EXPECT_EQ(eval.output.find("warning"), std::string::npos) << eval.output;
  // A table that cannot be read is one error line naming it.
  auto missing = run_graphcost("eval --model " + path("run") + " --data " +
                               path("other/h100.json") + " --split '' --devices " +
                               path("absent.json"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.output.rfind("graphcost: error: " + path("absent.json"), 0), 0u)
      << missing.output;
}

}  // namespace
}  // namespace graphcost
