#include "run/run_folder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "../io/temp_dir.h"

namespace graphcost::run {
namespace {

namespace fs = std::filesystem;

class RunFolderTest : public ::testing::Test {
 protected:
  TempDir temp_;
  const std::string dir_ = temp_.path();
  void touch(const std::string& name, const std::string& text = "x") {
    std::ofstream(dir_ + "/" + name) << text;
  }
  // The message check_new throws, or "" when it accepts the folder.
  std::string check_new_error(bool overwrite, bool resumable) {
    try {
      RunFolder(dir_).check_new(overwrite, resumable);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(RunFolderTest, NamesEveryFileOfARun) {
  const RunFolder folder("runs/a");
  EXPECT_EQ(folder.dir(), "runs/a");
  EXPECT_EQ(folder.config_path(), "runs/a/config.json");
  EXPECT_EQ(folder.model_path(), "runs/a/model.pt");
  EXPECT_EQ(folder.xgboost_model_path(), "runs/a/model.xgb");
  EXPECT_EQ(folder.checkpoint_path(), "runs/a/checkpoint.pt");
  EXPECT_EQ(folder.metrics_path(), "runs/a/metrics.jsonl");
  EXPECT_EQ(folder.valid_predictions_path(), "runs/a/valid_predictions.jsonl");
  EXPECT_EQ(folder.report_path(), "runs/a/report.html");
  EXPECT_EQ(folder.trial_path(), "runs/a/trial.json");
  EXPECT_EQ(folder.meta_model_path(), "runs/a/meta.xgb");
  EXPECT_EQ(folder.other_devices_path(), "runs/a/other_devices.json");
}

TEST_F(RunFolderTest, NewFolderCheckNamesTheRunFileAndTheWayOut) {
  EXPECT_EQ(check_new_error(false, true), "");
  touch("notes.txt");  // not a run's file
  EXPECT_EQ(check_new_error(false, true), "");
  touch("model.xgb");
  EXPECT_EQ(check_new_error(false, false),
            dir_ + ": already holds a training run (model.xgb); --overwrite replaces it");
  EXPECT_EQ(check_new_error(true, false), "");
  touch("checkpoint.pt");
  EXPECT_EQ(check_new_error(false, true),
            dir_ + ": already holds a training run (model.xgb); --resume continues it, "
                   "--overwrite replaces it");
  EXPECT_EQ(check_new_error(false, false),
            dir_ + ": already holds a training run (model.xgb); --overwrite replaces it");
}

TEST_F(RunFolderTest, RemovingRunFilesKeepsEverythingElse) {
  for (const char* name : {"model.pt", "model.xgb", "config.json", "metrics.jsonl",
                           "checkpoint.pt", "valid_predictions.jsonl", "report.html", "meta.xgb",
                           "other_devices.json"})
    touch(name);
  touch("notes.txt");
  touch("trial.json");
  RunFolder(dir_).remove_run_files();
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir_)) left.push_back(entry.path().filename());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"notes.txt", "trial.json"}));
}

TEST_F(RunFolderTest, MetricsAreStartedAppendedAndTruncatedOnResume) {
  const RunFolder folder(dir_);
  EXPECT_EQ(folder.metrics_text(), "");
  EXPECT_TRUE(folder.last_metrics().is_null());
  folder.start_metrics();
  EXPECT_TRUE(folder.last_metrics().is_null());  // empty
  for (int i : {10, 20, 30}) folder.append_metrics({{"iteration", i}, {"loss", i / 10.0}});
  EXPECT_EQ(folder.last_metrics(), (nlohmann::json{{"iteration", 30}, {"loss", 3.0}}));
  folder.truncate_metrics(20);
  EXPECT_EQ(folder.metrics_text(),
            "{\"iteration\":10,\"loss\":1.0}\n{\"iteration\":20,\"loss\":2.0}\n");
  touch("metrics.jsonl", "{\"iteration\":10}\n{\"iter");  // a line cut short
  EXPECT_TRUE(folder.last_metrics().is_null());
}

TEST_F(RunFolderTest, ConfigIsWrittenWithItsHeaderAndReadBack) {
  const RunFolder folder(dir_);
  EXPECT_FALSE(folder.config_text().has_value());
  EXPECT_EQ(folder.read_config().format_version, 0);  // a run from before config.json
  folder.write_config(ModelType::Gnn, {{"collection", "tile:xla"}});
  EXPECT_EQ(*folder.config_text(),
            "{\n  \"collection\": \"tile:xla\",\n  \"format_version\": 1,\n  \"model_type\": "
            "\"gnn\"\n}\n");
  const RunConfig config = folder.read_config();
  EXPECT_EQ(config.format_version, kRunFormatVersion);
  EXPECT_EQ(config.data.collection, "tile:xla");
}

TEST_F(RunFolderTest, StateComesFromTrialJsonElseFromTheModel) {
  const RunFolder folder(dir_);
  EXPECT_EQ(folder.state(), RunState::Unfinished);
  EXPECT_FALSE(folder.has_model());
  touch("checkpoint.pt");
  EXPECT_EQ(folder.state(), RunState::Unfinished);  // stopped, resumable
  touch("model.pt");
  EXPECT_TRUE(folder.has_model());
  EXPECT_EQ(folder.model_paths(), std::vector<std::string>{folder.model_path()});
  EXPECT_EQ(folder.state(), RunState::Complete);
  folder.write_state(RunState::Pruned, {{"trial", 3}, {"value", 0.5}});
  EXPECT_EQ(read_file(folder.trial_path()),
            "{\n  \"state\": \"pruned\",\n  \"trial\": 3,\n  \"value\": 0.5\n}\n");
  EXPECT_EQ(folder.state(), RunState::Pruned);
  folder.write_state(RunState::Failed, nlohmann::json::object());
  EXPECT_EQ(folder.state(), RunState::Failed);
  touch("trial.json", "{\"state\": \"lost\"}");
  EXPECT_THROW(folder.state(), Error);
  touch("trial.json", "[1,");
  EXPECT_THROW(folder.state(), Error);
}

TEST(RunStateName, SpellsEachState) {
  EXPECT_STREQ(run_state_name(RunState::Unfinished), "unfinished");
  EXPECT_STREQ(run_state_name(RunState::Complete), "complete");
  EXPECT_STREQ(run_state_name(RunState::Pruned), "pruned");
  EXPECT_STREQ(run_state_name(RunState::Failed), "failed");
}

}  // namespace
}  // namespace graphcost::run
