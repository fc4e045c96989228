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
                      " --model gnn --collection tile:xla --valid-split '' --iterations 3"
                      " --graphs-per-batch 2"
                      " --slate-size 8 --hidden 8 8 --threads 1 --out " +
                      path("run"))
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

// Kernel Tuner caches are tabular records: `train` fits XGBoost unless told otherwise, and then
// refuses a neural model's option with a line saying how to get the neural model.
TEST_F(KernelTunerDevicesCli, TabularRecordsTrainXGBoostByDefault) {
  auto xgb =
      run_graphcost("train --data " + path("train") + " --threads 1 --out " + path("run_xgb"));
  ASSERT_EQ(xgb.status, 0) << xgb.output;
  EXPECT_NE(xgb.output.find("train: Kernel Tuner records: training XGBoost (200 rounds, depth 6, "
                            "eta 0.3, subsample 0.8), which ranks a device held out of the "
                            "training data better than the neural model does "
                            "(docs/kernel-tuner.md); --model gnn for the neural model\n"),
            std::string::npos)
      << xgb.output;
  EXPECT_TRUE(fs::exists(path("run_xgb/model.xgb")));
  const nlohmann::json config = nlohmann::json::parse(read_file(path("run_xgb/config.json")));
  EXPECT_EQ(config.at("collection"), "tile:xla");
  EXPECT_EQ(config.at("xgboost").at("eta"), 0.3);
  EXPECT_EQ(config.at("xgboost").at("subsample"), 0.8);
  EXPECT_EQ(config.at("xgboost").at("threads"), 1);
  auto eval = run_graphcost("eval --model " + path("run_xgb") + " --data " +
                                path("other/a6000.json") + " --split '' --threads 1 --json",
                            Streams::Stdout);
  ASSERT_EQ(eval.status, 0) << eval.output;
  EXPECT_EQ(nlohmann::json::parse(eval.output).at("graphs").at(0).at("name"),
            "toy_NVIDIA_RTX_A6000");

  auto neural_flag = run_graphcost("train --data " + path("train") + " --iterations 5 --out " +
                                   path("run_refused"));
  EXPECT_EQ(neural_flag.status, 1);
  EXPECT_EQ(neural_flag.output,
            "graphcost: error: train: --iterations: a neural model's option: Kernel Tuner records "
            "train XGBoost by default; add --model gnn for the neural model, or use `graphcost "
            "xgb train` for XGBoost's own options\n");
  EXPECT_FALSE(fs::exists(path("run_refused")));

  // XGBoost trains in one process: under a launch of several it is refused before anything is
  // read or written (it trained on rank 0 alone, the others writing the same run, before).
  auto launched =
      run_graphcost("train --data " + path("train") + " --threads 1 --world-size 2 " +
                    "--rank 1 --dist-url tcp://127.0.0.1:9 --out " + path("run_launched"));
  EXPECT_EQ(launched.status, 1);
  EXPECT_EQ(launched.output,
            "graphcost: error: train: --model: XGBoost (--model auto) trains in one process, not "
            "across 2 (the launch's world size): start it without a launcher, or --model gnn for "
            "the neural model across processes\n");
  EXPECT_FALSE(fs::exists(path("run_launched")));
}

// With --model gnn, Kernel Tuner caches start from train::tabular_defaults (the MLP over
// one-hot parameter values), and the options given override them.
TEST_F(KernelTunerDevicesCli, TheNeuralModelStartsFromTabularDefaultsAndFlagsOverrideThem) {
  const nlohmann::json config = nlohmann::json::parse(read_file(path("run/config.json")));
  EXPECT_EQ(config.at("model").at("architecture"), "mlp");
  EXPECT_EQ(config.at("model").at("config_one_hot"), 16);
  // log2 of the block sizes 16..256, log2 of the unrolls 1, 2, 4
  EXPECT_EQ(config.at("model").at("config_values"),
            nlohmann::json::parse("[[4, 5, 6, 7, 8], [0, 1, 2]]"));
  EXPECT_EQ(config.at("iterations"), 3);  // given
  EXPECT_EQ(config.at("slate_size"), 8);  // given

  auto given = run_graphcost("train --data " + path("train") +
                             " --model gnn --valid-split '' --iterations 2"
                             " --architecture sage --config-one-hot 0 --hidden 8 --threads 1"
                             " --out " +
                             path("run_sage"));
  ASSERT_EQ(given.status, 0) << given.output;
  EXPECT_NE(given.output.find(
                "train: Kernel Tuner records: the defaults for tabular data (--collection "
                "tile:xla, --graphs-per-batch 2, --iterations 3000, --architecture mlp, "
                "--config-one-hot 16, --dropout 0.3, --slate-size 256; docs/kernel-tuner.md); "
                "options given override them\n"),
            std::string::npos)
      << given.output;
  const nlohmann::json sage = nlohmann::json::parse(read_file(path("run_sage/config.json")));
  EXPECT_EQ(sage.at("model").at("architecture"), "sage");
  EXPECT_EQ(sage.at("model").at("config_one_hot"), 0);
  EXPECT_TRUE(sage.at("model").at("config_values").empty());
  EXPECT_EQ(sage.at("slate_size"), 256);  // not given: the tabular default
  EXPECT_EQ(sage.at("graphs_per_batch"), 2);
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
