#include "run/run_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace graphcost::run {
namespace {

namespace fs = std::filesystem;

class RunConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::temp_directory_path() /
            ("graphcost_run_" + std::to_string(::getpid()) + "_" + info->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& text) { std::ofstream(dir_ + "/config.json") << text; }
  // The one-line message load_run_config throws, or "" when it loads.
  std::string load_error() {
    try {
      load_run_config(dir_);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  std::string dir_;
};

TEST_F(RunConfigTest, WrittenRunLoadsWithVersionTypeAndDataOptions) {
  write_run_config(dir_, ModelType::XGBoost,
                   {{"collection", "tile:xla"},
                    {"exclude", {"a", "b"}},
                    {"skip_invalid", true},
                    {"prune_hops", 2},
                    {"xgboost", {{"rounds", 3}}}});
  const nlohmann::json written = nlohmann::json::parse(read_file(dir_ + "/config.json"));
  EXPECT_EQ(written["format_version"], kRunFormatVersion);
  EXPECT_EQ(written["model_type"], "xgboost");
  const RunConfig run = load_run_config(dir_);
  EXPECT_EQ(run.format_version, kRunFormatVersion);
  EXPECT_EQ(run.model_type, ModelType::XGBoost);
  EXPECT_EQ(run.data.collection, "tile:xla");
  EXPECT_EQ(run.data.exclude, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(run.data.skip_invalid);
  EXPECT_EQ(run.data.prune_hops, 2);
  EXPECT_EQ(run.data.prune_seeds, "all");
  EXPECT_EQ(run.slate_size, 0);
  EXPECT_EQ(run.options["xgboost"]["rounds"], 3);
}

TEST_F(RunConfigTest, StackedRunRoundTrips) {
  write_run_config(dir_, ModelType::Stack, {{"collection", "tile:xla"}, {"stack", {{"meta", "ridge"}}}});
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ + "/config.json"))["model_type"], "stack");
  const RunConfig run = load_run_config(dir_);
  EXPECT_EQ(run.model_type, ModelType::Stack);
  EXPECT_EQ(run.options["stack"]["meta"], "ridge");
  EXPECT_STREQ(model_type_name(ModelType::Stack), "stack");
}

TEST_F(RunConfigTest, UnversionedRunsOfBothTypesStillLoad) {
  write(R"({"collection": "layout:xla:random", "slate_size": 8, "prune_hops": 1,
            "prune_seeds": "conv-dot-reshape", "model": {}})");
  RunConfig run = load_run_config(dir_);
  EXPECT_EQ(run.format_version, 0);
  EXPECT_EQ(run.model_type, ModelType::Gnn);
  EXPECT_EQ(run.slate_size, 8);
  EXPECT_EQ(run.data.prune_seeds, "conv-dot-reshape");
  write(R"({"model_type": "xgboost", "collection": "tile:xla", "xgboost": {}})");
  run = load_run_config(dir_);
  EXPECT_EQ(run.format_version, 0);
  EXPECT_EQ(run.model_type, ModelType::XGBoost);
}

// Every data option a run is written with reads back as it was (through the data options' table).
TEST_F(RunConfigTest, DataOptionsRoundTrip) {
  data::DataOptions given;
  given.data = "/data/packs/train.gcpack";
  given.collection = "layout:nlp:default";
  given.split = "valid";
  given.exclude = {"bert", "resnet"};
  given.skip_invalid = true;
  given.prune_hops = 3;
  given.prune_seeds = "convolution,dot";
  given.devices = "/data/devices.json";
  given.device_name = "NVIDIA A100-PCIE-40GB";
  nlohmann::json options;
  write_option_fields(options, data::data_option_fields(), given);
  options["slate_size"] = 16;
  write_run_config(dir_, ModelType::Gnn, options);
  const RunConfig run = load_run_config(dir_);
  nlohmann::json read;
  write_option_fields(read, data::data_option_fields(), run.data);
  EXPECT_EQ(read, nlohmann::json::parse(R"({"data": "/data/packs/train.gcpack",
      "collection": "layout:nlp:default", "split": "valid", "exclude": ["bert", "resnet"],
      "skip_invalid": true, "prune_hops": 3, "prune_seeds": "convolution,dot",
      "devices": "/data/devices.json", "device_name": "NVIDIA A100-PCIE-40GB"})"));
  EXPECT_EQ(run.slate_size, 16);
}

// A config.json as `train` wrote it before format versions (graphcost a07cd34^): every data key
// it has is read, the ones it lacks (exclude, skip_invalid) keep their defaults.
TEST_F(RunConfigTest, ConfigOfAnOldTrainStillLoads) {
  write(R"({"data": "/runs/data", "valid_data": "", "collection": "layout:xla:default",
            "split": "train", "valid_split": "valid", "iterations": 12, "graphs_per_batch": 2,
            "slate_size": 8, "loss": "listmle", "optimizer": "adam", "lr": 0.001,
            "weight_decay": 0.0, "decay_at": [], "grad_clip": 1.0, "log_every": 6,
            "validate_every": 6, "valid_configs_per_graph": 40, "valid_batch": 100,
            "valid_predictions_graphs": 5, "checkpoint_every": 1000, "seed": 1, "threads": 1,
            "share_rows": true, "prune_hops": 2, "prune_seeds": "conv-dot-reshape",
            "swa_start": 0, "swa_every": 10, "gst_segment_nodes": 0,
            "gst_segments_per_step": 1, "gst_stale_dropout": 0.0, "gst_partition": "contiguous",
            "model": {"hidden": [16, 16]}})");
  const RunConfig run = load_run_config(dir_);
  EXPECT_EQ(run.format_version, 0);
  EXPECT_EQ(run.model_type, ModelType::Gnn);
  EXPECT_EQ(run.data.data, "/runs/data");
  EXPECT_EQ(run.data.collection, "layout:xla:default");
  EXPECT_EQ(run.data.split, "train");
  EXPECT_EQ(run.data.exclude, std::vector<std::string>{});
  EXPECT_FALSE(run.data.skip_invalid);
  EXPECT_EQ(run.data.prune_hops, 2);
  EXPECT_EQ(run.data.prune_seeds, "conv-dot-reshape");
  EXPECT_EQ(run.slate_size, 8);
  EXPECT_EQ(run.options["model"]["hidden"], nlohmann::json({16, 16}));
}

TEST_F(RunConfigTest, MissingFileIsAnOldRunWithoutOptions) {
  const RunConfig run = load_run_config(dir_);
  EXPECT_EQ(run.format_version, 0);
  EXPECT_EQ(run.model_type, ModelType::Gnn);
  EXPECT_EQ(run.data.collection, "");
  EXPECT_EQ(run.data.prune_hops, -1);
  EXPECT_EQ(run.data.prune_seeds, "all");
}

TEST_F(RunConfigTest, NewerFormatsAndUnknownTypesAreRefusedWithHowToRetrain) {
  const std::string path = dir_ + "/config.json";
  write(R"({"format_version": 2, "model_type": "gnn"})");
  EXPECT_EQ(load_error(), path + ": format_version: format 2 is newer than this graphcost reads (1): "
                                 "retrain it with this graphcost (`graphcost train`, or `graphcost "
                                 "xgb train` for an XGBoost run) or read it with the graphcost "
                                 "that wrote it");
  write(R"({"format_version": 1, "model_type": "lightgbm"})");
  EXPECT_EQ(load_error().rfind(path + ": model_type: unknown model type \"lightgbm\" (known: gnn, "
                                      "xgboost, stack): retrain it",
                               0),
            0u);
  write(R"({"format_version": "1"})");
  EXPECT_EQ(load_error(), path + ": format_version: expected an integer");
  write(R"({"exclude": "a"})");
  EXPECT_EQ(load_error(),
            path + ": exclude: wrong type: expected an array of strings, got a string \"a\"");
  write(R"({"skip_invalid": 1})");
  EXPECT_EQ(load_error(),
            path + ": skip_invalid: wrong type: expected true or false, got a number 1");
  write(R"({"prune_hops": 1.5})");
  EXPECT_EQ(load_error(),
            path + ": prune_hops: expected an integer in [-2147483648, 2147483647], got 1.5");
  write(R"({"collection": )");
  EXPECT_EQ(load_error().rfind(path + ": not valid JSON (truncated or damaged?)", 0), 0u);
}

TEST(RunHeader, StrippedFromOptionsAndCheckedAgainstTheReader) {
  const nlohmann::json body = strip_run_header(
      {{"format_version", 1}, {"model_type", "gnn"}, {"lr", 0.1}}, ModelType::Gnn, "train options");
  EXPECT_EQ(body, nlohmann::json({{"lr", 0.1}}));
  EXPECT_EQ(strip_run_header({{"lr", 0.1}}, ModelType::Gnn, "x"), nlohmann::json({{"lr", 0.1}}));
  try {
    strip_run_header({{"model_type", "xgboost"}}, ModelType::Gnn, "train options");
    FAIL() << "an XGBoost run's options read as GNN options";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "train options: model_type: xgboost run options, but these are read as gnn options");
  }
}

}  // namespace
}  // namespace graphcost::run
