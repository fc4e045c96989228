#include "train/session.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "model/io/model_file.h"
#include "../io/temp_dir.h"
#include "test_collection.h"
#include "train/interrupt.h"
#include "train/trainer.h"

namespace graphcost::train {
namespace {

namespace fs = std::filesystem;
using testing::make_test_collection;

// As a config.json would give them.
TrainOptions session_options() {
  TrainOptions options;
  from_json({{"collection", "tile:xla"}, {"iterations", 12}, {"graphs_per_batch", 2},
             {"slate_size", 6}, {"log_every", 4}, {"validate_every", 6},
             {"valid_configs_per_graph", 8}, {"checkpoint_every", 0}, {"threads", 1},
             {"seed", 3}, {"model", {{"hidden", {8, 8}}}}},
            options);
  return options;
}

SessionRequest request_for(const std::string& dir, const TrainOptions& options) {
  SessionRequest request;
  request.run_dir = dir;
  request.collection_given = true;
  request.apply_given = [options](TrainOptions& given) { given = options; };
  return request;
}

// What a front-end sees, step by step: a metrics line every log_every iterations, validation
// every validate_every, and the same result as train() stepping the session itself.
TEST(Session, StepsLogAndValidateAsTrainDoes) {
  auto train_set = make_test_collection(data::ConfigKind::Tile, 3, 12, 4);
  auto valid_set = make_test_collection(data::ConfigKind::Tile, 2, 12, 5, "valid");
  const TrainOptions options = session_options();
  const TempDir stepped_dir, whole_dir;
  const std::string& stepped = stepped_dir.path();
  const std::string& whole = whole_dir.path();
  clear_stop_request();
  Session session(request_for(stepped, options), *train_set, valid_set.get());
  EXPECT_EQ(session.options().model.kind, data::ConfigKind::Tile);  // resolved from the data
  std::vector<int64_t> logged, validated;
  while (!session.done()) {
    ASSERT_TRUE(session.step());
    if (session.logged().is_null()) continue;
    logged.push_back(session.logged()["iteration"].get<int64_t>());
    if (session.logged().contains("valid_graphs")) validated.push_back(session.iteration());
  }
  EXPECT_EQ(logged, (std::vector<int64_t>{4, 6, 8, 12}));
  EXPECT_EQ(validated, (std::vector<int64_t>{6, 12}));
  const nlohmann::json now = session.validate();
  const TrainResult result = session.finish();
  EXPECT_EQ(result.iterations, 12);
  EXPECT_FALSE(result.interrupted);
  EXPECT_EQ(now, result.last_validation);  // the model did not change since the last step
  EXPECT_EQ(now["valid_graphs"], 2);
  EXPECT_TRUE(fs::exists(session.folder().model_path()));
  EXPECT_TRUE(fs::exists(session.folder().valid_predictions_path()));

  const TrainResult once = train(options, *train_set, valid_set.get(), whole, false);
  EXPECT_EQ(once.last_validation, result.last_validation);
}

// A stop asked between steps ends the run at a checkpoint, without model.pt.
TEST(Session, AStopEndsTheRunAtACheckpoint) {
  auto train_set = make_test_collection(data::ConfigKind::Tile, 3, 12, 4);
  const TempDir temp;
  const std::string& dir = temp.path();
  clear_stop_request();
  Session session(request_for(dir, session_options()), *train_set, nullptr);
  EXPECT_EQ(session.valid_set(), nullptr);
  ASSERT_TRUE(session.step());
  request_stop();
  EXPECT_FALSE(session.step());
  EXPECT_TRUE(session.done());
  const TrainResult result = session.finish();
  clear_stop_request();
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_TRUE(session.folder().has_checkpoint());
  EXPECT_FALSE(session.folder().has_model());
  EXPECT_EQ(session.folder().state(), run::RunState::Unfinished);
}

// The rules every front-end gets from the session: a new run refuses an earlier one's folder;
// a resumed run keeps its stored options and names the ones given otherwise, in the front-end's
// own spelling.
TEST(Session, RefusesAnEarlierRunAndChangedOptionsOnResume) {
  auto train_set = make_test_collection(data::ConfigKind::Tile, 3, 12, 4);
  const TempDir temp;
  const std::string& dir = temp.path();
  const TrainOptions options = session_options();
  clear_stop_request();
  train(options, *train_set, nullptr, dir, false);
  auto message = [&](const SessionRequest& request) -> std::string {
    try {
      Session session(request, *train_set, nullptr);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message(request_for(dir, options)),
            dir + ": already holds a training run (model.pt); --resume continues it, "
                  "--overwrite replaces it");
  SessionRequest resume = request_for(dir, options);
  resume.resume = true;
  // Given as a front-end gives them: over the stored options.
  resume.apply_given = [](TrainOptions& given) {
    given.lr *= 2;
    given.iterations = 20;  // free on resume
  };
  resume.names = OptionNames::Keywords;
  EXPECT_EQ(message(resume),
            dir +
                ": resume: the run keeps its stored options, but these were given otherwise: "
                "lr (only data, valid_data, iterations, validate_train_graphs, "
                "checkpoint_seconds, threads, precision, share_rows may change)");
  resume.names = OptionNames::Flags;
  resume.overwrite = true;
  EXPECT_EQ(message(resume), "train: --overwrite: not with --resume");
}

}  // namespace
}  // namespace graphcost::train
