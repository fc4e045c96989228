#include "model/scoring/uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../random_graph.h"
#include "core/error.h"
#include "model/scoring/predict.h"

namespace graphcost::model {
namespace {

class McDropoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph = testing::random_graph(40, 60, 2, 5, 10, 0, 7);
    tensors = make_graph_tensors(graph);
    table.kind = data::ConfigKind::Tile;
    table.count = 30;
    table.width = 3;
    for (int64_t i = 0; i < table.count * table.width; ++i) table.tile.push_back(float(i % 7) - 2);
  }
  Ranker make_model(double dropout) {
    torch::manual_seed(3);
    ModelOptions o;
    o.kind = data::ConfigKind::Tile;
    o.node_feature_width = 5;
    o.config_width = 3;
    o.num_opcodes = 10;
    o.opcode_embedding = 4;
    o.node_feature_dim = 3;
    o.hidden = {8, 8};
    o.dropout = dropout;
    return Ranker(o);
  }
  data::Graph graph;
  GraphTensors tensors;
  data::ConfigTable table;
};

TEST_F(McDropoutTest, NoDropoutGivesZeroSpreadAndThePlainScores) {
  Ranker model = make_model(0.0);
  // A slate size that splits the configurations unevenly, as score_configs does.
  const ScoreStats stats = mc_dropout_scores(model, tensors, table.view(), {}, 5, 11, 7);
  const std::vector<double> plain = score_configs(model, tensors, table.view(), {}, 7);
  ASSERT_EQ(stats.mean.size(), 30u);
  EXPECT_EQ(stats.mean, plain);
  for (double s : stats.std) EXPECT_EQ(s, 0.0);
}

TEST_F(McDropoutTest, DropoutIsSeededReproducibleAndSpreads) {
  Ranker model = make_model(0.3);
  model->eval();
  const std::vector<int64_t> subset = {4, 1, 9, 20};
  torch::manual_seed(99);
  const double before = torch::rand({1}).item<double>();
  torch::manual_seed(99);
  const ScoreStats a = mc_dropout_scores(model, tensors, table.view(), subset, 8, 5);
  // The default generator's stream is left where it was, and the model's mode too.
  EXPECT_EQ(torch::rand({1}).item<double>(), before);
  EXPECT_FALSE(model->is_training());
  const ScoreStats b = mc_dropout_scores(model, tensors, table.view(), subset, 8, 5);
  const ScoreStats c = mc_dropout_scores(model, tensors, table.view(), subset, 8, 6);
  ASSERT_EQ(a.mean.size(), 4u);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.std, b.std);
  EXPECT_NE(a.mean, c.mean);
  for (double s : a.std) EXPECT_GT(s, 0.0);
}

TEST_F(McDropoutTest, MeanAndSpreadOfTwoPassesByHand) {
  Ranker model = make_model(0.3);
  const std::vector<int64_t> subset = {0, 1, 2};
  const ScoreStats stats = mc_dropout_scores(model, tensors, table.view(), subset, 2, 5);
  // The same two passes drawn directly: default generator seeded with 5, train mode.
  torch::manual_seed(5);
  model->train();
  torch::NoGradGuard no_grad;
  const Slate slate = make_slate(tensors, table.view(), subset);
  const torch::Tensor x = model->forward(slate).to(torch::kFloat64);
  const torch::Tensor y = model->forward(slate).to(torch::kFloat64);
  for (int64_t i = 0; i < 3; ++i) {
    const double a = x[i].item<double>(), b = y[i].item<double>();
    EXPECT_NEAR(stats.mean[i], (a + b) / 2, 1e-12);
    EXPECT_NEAR(stats.std[i], std::abs(a - b) / 2, 1e-12);
  }
  EXPECT_THROW(mc_dropout_scores(model, tensors, table.view(), {0}, 0, 5), Error);
}

}  // namespace
}  // namespace graphcost::model
