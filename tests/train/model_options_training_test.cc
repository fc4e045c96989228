// The architecture options through the trainer (docs/model-architecture.md): the pairwise head's own
// loss and validation by wins, attention and GraphNorm, on a learnable layout collection.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_collection.h"
#include "train/trainer.h"

namespace graphcost::train {
namespace {

namespace fs = std::filesystem;

std::vector<nlohmann::json> train_and_read_metrics(const TrainOptions& options,
                                                   const std::string& name) {
  auto train_set = testing::make_test_collection(data::ConfigKind::Layout, 4, 30, 1);
  auto valid_set = testing::make_test_collection(data::ConfigKind::Layout, 2, 20, 2, "valid");
  const std::string dir =
      (fs::temp_directory_path() / ("graphcost_options_" + name + std::to_string(getpid())))
          .string();
  fs::remove_all(dir);
  clear_stop_request();
  train(options, *train_set, valid_set.get(), dir, false);
  std::vector<nlohmann::json> lines;
  std::ifstream in(dir + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  fs::remove_all(dir);
  return lines;
}

TrainOptions options_for(const std::string& head, bool attention, bool graph_norm) {
  TrainOptions options;
  options.iterations = 150;
  options.graphs_per_batch = 2;
  options.slate_size = 6;
  options.log_every = 50;
  options.validate_every = 150;
  options.valid_configs_per_graph = 12;
  options.valid_batch = 5;  // several chunks per graph: pairwise scores must still be comparable
  options.checkpoint_every = 0;
  options.threads = 1;
  options.seed = 11;
  options.lr = 1e-2;
  options.model.hidden = {8, 8};
  options.model.head = head;
  options.model.attention = attention;
  options.model.graph_norm = graph_norm;
  return options;
}

TEST(ModelOptionsTraining, PairwiseHeadLearnsTheOrder) {
  const std::vector<nlohmann::json> lines =
      train_and_read_metrics(options_for("pairwise", false, false), "pairwise");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_LT(lines.back()["loss"].get<double>(), lines.front()["loss"].get<double>());
  EXPECT_GT(lines.back()["kendall_tau"].get<double>(), 0.3);
}

TEST(ModelOptionsTraining, AttentionWithGraphNormLearnsTheOrder) {
  const std::vector<nlohmann::json> lines =
      train_and_read_metrics(options_for("score", true, true), "attention");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_LT(lines.back()["loss"].get<double>(), lines.front()["loss"].get<double>());
  EXPECT_GT(lines.back()["kendall_tau"].get<double>(), 0.3);
}

}  // namespace
}  // namespace graphcost::train
