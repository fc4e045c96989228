#include "model/layers/pairwise.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../options_testing.h"
#include "../random_graph.h"
#include "core/error.h"
#include "model/scoring/pairwise_scoring.h"
#include "model/scoring/predict.h"

namespace graphcost::model {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

ModelOptions pairwise_options() {
  ModelOptions o = testing::small_model_options(data::ConfigKind::Tile);
  o.head = "pairwise";
  return o;
}

class PairwiseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph = testing::random_graph(20, 30, 2, 5, 10, 0, 3);
    tensors = make_graph_tensors(graph);
  }
  data::Graph graph;
  GraphTensors tensors;
};

TEST_F(PairwiseTest, LogitsAreAntisymmetric) {
  torch::manual_seed(1);
  Ranker model(pairwise_options());
  std::vector<float> storage;
  const data::ConfigView view = testing::tile_view(storage, 6, 1);
  const torch::Tensor logits = model->pairwise_logits(make_slate(tensors, view, {0, 1, 2, 3, 4, 5}));
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{6, 6}));
  EXPECT_TRUE(torch::equal(logits, -logits.t()));
  EXPECT_TRUE(torch::equal(torch::diagonal(logits), torch::zeros({6})));
  EXPECT_TRUE(torch::allclose(torch::sigmoid(logits), 1 - torch::sigmoid(logits.t()), 0, 1e-6));
  EXPECT_GT(logits.abs().max().item<float>(), 0.0f);
}

TEST(ScoresFromWins, HandCase) {
  // 0 beats 1 and 2, 1 beats 2: 0 ranks first (lowest cost), 2 last.
  const torch::Tensor logits = torch::tensor({0.0, 2.0, 1.0, -2.0, 0.0, 0.5, -1.0, -0.5, 0.0},
                                             torch::kFloat64)
                                   .reshape({3, 3});
  const torch::Tensor scores = scores_from_wins(logits, torch::eye(3, torch::kBool));
  EXPECT_NEAR(scores[0].item<double>(), -(sigmoid(2) + sigmoid(1)) / 2, 1e-12);
  EXPECT_NEAR(scores[1].item<double>(), -(sigmoid(-2) + sigmoid(0.5)) / 2, 1e-12);
  EXPECT_NEAR(scores[2].item<double>(), -(sigmoid(-1) + sigmoid(-0.5)) / 2, 1e-12);
  EXPECT_LT(scores[0].item<double>(), scores[1].item<double>());
  EXPECT_LT(scores[1].item<double>(), scores[2].item<double>());
  // A row with every pair left out scores 0.
  const torch::Tensor alone = scores_from_wins(torch::zeros({1, 1}), torch::ones({1, 1}, torch::kBool));
  EXPECT_EQ(alone.item<float>(), 0.0f);
}

TEST_F(PairwiseTest, ForwardRanksByWinsWithinTheSlate) {
  torch::manual_seed(2);
  Ranker model(pairwise_options());
  std::vector<float> storage;
  const data::ConfigView view = testing::tile_view(storage, 4, 2);
  const Slate slate = make_slate(tensors, view, {0, 1, 2, 3});
  const torch::Tensor probabilities = torch::sigmoid(model->pairwise_logits(slate));
  const torch::Tensor scores = model->forward(slate);
  for (int64_t i = 0; i < 4; ++i) {
    double wins = 0;
    for (int64_t j = 0; j < 4; ++j)
      if (j != i) wins += probabilities[i][j].item<double>();
    EXPECT_NEAR(scores[i].item<double>(), -wins / 3, 1e-6);
  }
}

TEST_F(PairwiseTest, ScoreConfigsComparesWithSeededReferences) {
  torch::manual_seed(3);
  ModelOptions options = pairwise_options();
  options.pairwise_references = 4;
  Ranker model(options);
  std::vector<float> storage;
  const data::ConfigView view = testing::tile_view(storage, 9, 3);
  const std::vector<int64_t> indices = {8, 0, 3, 5, 1, 7, 2};
  const std::vector<double> scores = score_configs(model, tensors, view, indices, 3);
  ASSERT_EQ(scores.size(), indices.size());
  EXPECT_EQ(scores, score_configs(model, tensors, view, indices, 3));  // seeded
  const std::vector<int64_t> references =
      pairwise_reference_positions(7, 4, kPairwiseReferenceSeed);
  ASSERT_EQ(references.size(), 4u);
  // Reference: embeddings of each configuration alone (no attention: slate-independent).
  torch::NoGradGuard no_grad;
  model->eval();
  auto embedding = [&](int64_t position) {
    return model->embed(make_slate(tensors, view, {indices[position]}));
  };
  for (size_t i = 0; i < indices.size(); ++i) {
    double wins = 0;
    int count = 0;
    for (int64_t r : references) {
      if (r == static_cast<int64_t>(i)) continue;
      wins += torch::sigmoid(model->pairwise_logits(embedding(i), embedding(r))).item<double>();
      ++count;
    }
    EXPECT_NEAR(scores[i], -wins / count, 1e-5) << i;
  }
  EXPECT_EQ(pairwise_reference_positions(3, 10, 1), (std::vector<int64_t>{0, 1, 2}));
}

TEST(PairwiseOptions, UnknownHeadIsAnError) {
  ModelOptions o = pairwise_options();
  o.head = "listwise";
  EXPECT_THROW(Ranker{o}, Error);
  Ranker score_model(testing::small_model_options(data::ConfigKind::Tile));
  EXPECT_THROW(score_model->pairwise_logits(torch::zeros({1, 6}), torch::zeros({1, 6})), Error);
}

}  // namespace
}  // namespace graphcost::model
