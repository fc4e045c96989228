#include "train/swa.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "model/io/model_file.h"
#include "test_collection.h"
#include "train/trainer.h"

namespace graphcost::train {
namespace {

namespace fs = std::filesystem;

model::Ranker tiny_model() {
  model::ModelOptions o;
  o.kind = data::ConfigKind::Tile;
  o.node_feature_width = 3;
  o.config_width = 2;
  o.num_opcodes = 4;
  o.opcode_embedding = 2;
  o.node_feature_dim = 2;
  o.hidden = {3};
  return model::Ranker(o);
}

void fill(model::Ranker& model, double value) {
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) p.fill_(value);
}

TEST(WeightAverage, SnapshotSchedule) {
  WeightAverage average(5, 3);
  EXPECT_FALSE(average.due(4));
  EXPECT_TRUE(average.due(5));
  EXPECT_FALSE(average.due(7));
  EXPECT_TRUE(average.due(8));
  EXPECT_FALSE(WeightAverage(0, 3).due(6));
  EXPECT_THROW(WeightAverage(5, 0), Error);
  EXPECT_THROW(WeightAverage(-1, 1), Error);
}

TEST(WeightAverage, IsTheArithmeticMeanOfTheSnapshots) {
  model::Ranker model = tiny_model();
  WeightAverage average(1, 1);
  for (double v : {1.0, 2.0, 6.0}) {
    fill(model, v);
    average.add(model);
  }
  fill(model, -5);
  average.copy_to(model);
  for (const auto& p : model->parameters()) EXPECT_TRUE(torch::all(p == 3.0).item<bool>());
  EXPECT_EQ(average.count(), 3);
  EXPECT_THROW(WeightAverage(1, 1).copy_to(model), Error);
}

TEST(WeightAverage, SurvivesAnArchiveRoundTrip) {
  model::Ranker model = tiny_model();
  WeightAverage average(1, 1);
  fill(model, 0.25);
  average.add(model);
  fill(model, 0.75);
  average.add(model);
  const std::string path = (fs::temp_directory_path() / "graphcost_swa_archive.pt").string();
  torch::serialize::OutputArchive out;
  average.save(out);
  out.save_to(path);
  torch::serialize::InputArchive in;
  in.load_from(path);
  WeightAverage back(1, 1);
  back.load(in, path);
  EXPECT_EQ(back.count(), 2);
  back.copy_to(model);
  for (const auto& p : model->parameters()) EXPECT_TRUE(torch::all(p == 0.5).item<bool>());
  fs::remove(path);
}

TrainOptions small_options(int64_t iterations) {
  TrainOptions options;
  options.iterations = iterations;
  options.graphs_per_batch = 2;
  options.slate_size = 6;
  options.log_every = 10;
  options.validate_every = 0;
  options.valid_configs_per_graph = 8;
  options.checkpoint_every = 0;
  options.threads = 1;
  options.seed = 3;
  options.collection = "tile:xla";
  options.model.kind = data::ConfigKind::Tile;
  options.model.hidden = {8, 8};
  return options;
}

std::string swa_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("graphcost_swa_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

TEST(WeightAverage, TrainedModelIsTheMeanOfTheWeightsAtTheSnapshots) {
  auto train_set = testing::make_test_collection(data::ConfigKind::Tile, 3, 12, 4);
  auto valid_set = testing::make_test_collection(data::ConfigKind::Tile, 2, 12, 5, "valid");
  clear_stop_request();
  // The weights after 20, 25 and 30 iterations, from plain runs (training is deterministic).
  std::vector<std::vector<torch::Tensor>> snapshots;
  for (int64_t at : {20, 25, 30}) {
    const std::string dir = swa_dir("plain" + std::to_string(at));
    train(small_options(at), *train_set, nullptr, dir, false);
    snapshots.push_back(model::load_model(dir + "/model.pt")->parameters());
    fs::remove_all(dir);
  }
  TrainOptions options = small_options(30);
  options.swa_start = 20;
  options.swa_every = 5;
  const std::string whole = swa_dir("whole");
  const TrainResult result = train(options, *train_set, valid_set.get(), whole, false);
  EXPECT_TRUE(result.last_validation.contains("top1_error"));
  const auto averaged = model::load_model(whole + "/model.pt")->parameters();
  ASSERT_EQ(averaged.size(), snapshots[0].size());
  for (size_t i = 0; i < averaged.size(); ++i) {
    const torch::Tensor mean = ((snapshots[0][i].to(torch::kFloat64) + snapshots[1][i].to(torch::kFloat64) +
                                 snapshots[2][i].to(torch::kFloat64)) /
                                3.0)
                                   .to(torch::kFloat32);
    EXPECT_TRUE(torch::equal(averaged[i], mean)) << i;
  }
  // Interrupted at 22 (one snapshot in) and resumed: the average carries over.
  const std::string parts = swa_dir("parts");
  options.iterations = 22;
  train(options, *train_set, nullptr, parts, false);
  options.iterations = 30;
  train(options, *train_set, nullptr, parts, true);
  const auto resumed = model::load_model(parts + "/model.pt")->parameters();
  for (size_t i = 0; i < averaged.size(); ++i) EXPECT_TRUE(torch::equal(averaged[i], resumed[i])) << i;
  fs::remove_all(whole);
  fs::remove_all(parts);
}

}  // namespace
}  // namespace graphcost::train
