#include "model/layers/attention.h"

#include <gtest/gtest.h>

#include "../options_testing.h"
#include "../random_graph.h"
#include "core/error.h"
#include "core/random.h"
#include "model/forward/ranker.h"
#include "model/scoring/predict.h"
#include "model/scoring/tta.h"

namespace graphcost::model {
namespace {

TEST(SlateAttention, PermutingTheSlatePermutesTheOutput) {
  torch::manual_seed(1);
  SlateAttention attention(4, 0.5);
  EXPECT_NEAR(attention->temperature(), 0.5, 1e-6);  // stored as a float log
  const torch::Tensor e = torch::randn({6, 4}) * 10;
  const torch::Tensor out = attention->forward(e);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{6, 8}));
  EXPECT_TRUE(torch::equal(out.narrow(1, 0, 4), e));
  const torch::Tensor permutation = torch::tensor({3, 0, 5, 1, 4, 2}, torch::kLong);
  EXPECT_TRUE(torch::allclose(attention->forward(e.index_select(0, permutation)),
                              out.index_select(0, permutation), 1e-5, 1e-5));
}

TEST(SlateAttention, SlateOfOneAttendsToItself) {
  torch::manual_seed(2);
  SlateAttention attention(3, 0.5);
  const torch::Tensor e = torch::randn({1, 3});
  auto params = attention->named_parameters();
  const torch::Tensor value = torch::matmul(e, params["value.weight"].t()) + params["value.bias"];
  EXPECT_TRUE(torch::allclose(attention->forward(e), torch::cat({e, value}, -1), 1e-6, 1e-6));
  // Zero embeddings (zero-norm queries and keys) stay finite.
  EXPECT_TRUE(torch::isfinite(attention->forward(torch::zeros({2, 3}))).all().item<bool>());
}

TEST(SlateAttention, AnchoredRowsEqualTheirOwnSlateWithTheAnchors) {
  torch::manual_seed(4);
  SlateAttention attention(5, 0.5);
  const torch::Tensor e = torch::randn({4, 5}) * 3;
  const torch::Tensor anchors = torch::randn({3, 5}) * 3;
  const torch::Tensor out = attention->forward_anchored(e, anchors);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{4, 10}));
  for (int64_t i = 0; i < 4; ++i) {
    const torch::Tensor slate = torch::cat({anchors, e.narrow(0, i, 1)}, 0);
    EXPECT_TRUE(torch::allclose(out[i], attention->forward(slate)[3], 1e-5, 1e-5)) << i;
  }
  // Gradients reach the temperature and the key map through the anchors too.
  attention->forward_anchored(e, anchors).sum().backward();
  EXPECT_NE(attention->named_parameters()["log_temperature"].grad().item<float>(), 0.0f);
}

class AttentionRankerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph = testing::random_graph(64, 90, 4, 5, 10, 9, 3);
    tensors = make_graph_tensors(graph);
  }
  Slate layout_slate(int64_t s, uint64_t seed) {
    return testing::random_layout_slate(tensors, s, seed);
  }
  static ModelOptions options() {
    ModelOptions o = testing::small_model_options(data::ConfigKind::Layout);
    o.attention = true;
    return o;
  }
  data::Graph graph;
  GraphTensors tensors;
};

TEST_F(AttentionRankerTest, PermutingTheSlatePermutesTheScores) {
  torch::manual_seed(3);
  Ranker model(options());
  Slate slate = layout_slate(6, 4);
  const torch::Tensor scores = model->forward(slate);
  const torch::Tensor permutation = torch::tensor({3, 0, 5, 1, 4, 2}, torch::kLong);
  Slate permuted = slate;
  permuted.config_features = slate.config_features.index_select(0, permutation);
  EXPECT_TRUE(
      torch::allclose(model->forward(permuted), scores.index_select(0, permutation), 1e-5, 1e-5));
  // The shared (sparse) forward agrees with the dense reference.
  EXPECT_TRUE(torch::allclose(model->forward_dense(slate), scores, 1e-4, 1e-4));
}

TEST_F(AttentionRankerTest, AScoreDependsOnItsSlateAndASlateOfOneIsDefined) {
  torch::manual_seed(5);
  Ranker model(options());
  Slate slate = layout_slate(4, 6);
  const torch::Tensor scores = model->forward(slate);
  Slate first = slate;
  first.config_features = slate.config_features.narrow(0, 0, 1);
  const torch::Tensor alone = model->forward(first);
  ASSERT_EQ(alone.sizes(), (std::vector<int64_t>{1}));
  EXPECT_TRUE(std::isfinite(alone.item<float>()));
  EXPECT_NE(alone.item<float>(), scores[0].item<float>());
  // Gradients reach the temperature.
  model->forward(slate).sum().backward();
  EXPECT_NE(model->named_parameters()["attention.log_temperature"].grad().item<float>(), 0.0f);
}

// A small tile graph and a tile attention model's options, for the slate-scoring tests.
struct TileAttention {
  data::Graph graph = testing::random_graph(20, 30, 2, 5, 10, 0, 3);
  GraphTensors tensors = make_graph_tensors(graph);
  static ModelOptions options() {
    ModelOptions o = testing::small_model_options(data::ConfigKind::Tile);
    o.attention = true;
    return o;
  }
};

TEST(TestTimeAugmentation, DeterministicAndEqualToTheHandAverage) {
  const TileAttention setup;
  const GraphTensors& tensors = setup.tensors;
  torch::manual_seed(7);
  Ranker model(TileAttention::options());
  std::vector<float> storage;
  const data::ConfigView view = testing::tile_view(storage, 7, 4);
  const std::vector<int64_t> indices = {6, 0, 2, 5, 1, 4, 3};
  const std::vector<double> tta = score_configs_tta(model, tensors, view, indices, 3, 4, 11);
  EXPECT_EQ(tta, score_configs_tta(model, tensors, view, indices, 3, 4, 11));
  EXPECT_NE(tta, score_configs_tta(model, tensors, view, indices, 3, 4, 12));
  // By hand: round r shuffles the positions with stream (11, r) and cuts slates of 3.
  torch::NoGradGuard no_grad;
  model->eval();
  std::vector<double> expected(7, 0.0);
  for (uint64_t r = 0; r < 4; ++r) {
    std::vector<size_t> positions = {0, 1, 2, 3, 4, 5, 6};
    Random random = random_stream(11, r);
    random.shuffle(positions);
    for (size_t start = 0; start < 7; start += 3) {
      std::vector<int64_t> chunk;
      for (size_t i = start; i < std::min<size_t>(7, start + 3); ++i)
        chunk.push_back(indices[positions[i]]);
      const torch::Tensor scores = model->forward(make_slate(tensors, view, chunk));
      for (size_t i = start; i < std::min<size_t>(7, start + 3); ++i)
        expected[positions[i]] += scores[static_cast<int64_t>(i - start)].item<double>() / 4;
    }
  }
  for (size_t i = 0; i < 7; ++i) EXPECT_NEAR(tta[i], expected[i], 1e-5) << i;
  // Without attention a score does not depend on its slate: TTA changes nothing.
  Ranker plain(testing::small_model_options(data::ConfigKind::Tile));
  const std::vector<double> once = score_configs(plain, tensors, view, indices, 3);
  const std::vector<double> averaged = score_configs_tta(plain, tensors, view, indices, 2, 3, 1);
  for (size_t i = 0; i < 7; ++i) EXPECT_NEAR(averaged[i], once[i], 1e-5);
}

TEST(AnchoredScoring, EachScoreIsItsSlateWithTheAnchorsWhateverTheChunking) {
  const TileAttention setup;
  const GraphTensors& tensors = setup.tensors;
  torch::manual_seed(8);
  Ranker model(TileAttention::options());
  std::vector<float> storage;
  const data::ConfigView view = testing::tile_view(storage, 9, 4);
  const std::vector<int64_t> indices = {8, 0, 2, 5, 1, 4, 3, 7, 6};
  const std::vector<double> anchored =
      score_configs_anchored(model, tensors, view, indices, 4, 3, 21);
  EXPECT_EQ(anchored, score_configs_anchored(model, tensors, view, indices, 4, 3, 21));
  const std::vector<double> one_chunk =
      score_configs_anchored(model, tensors, view, indices, 100, 3, 21);
  for (size_t i = 0; i < indices.size(); ++i) EXPECT_NEAR(anchored[i], one_chunk[i], 1e-5) << i;
  EXPECT_NE(anchored, score_configs_anchored(model, tensors, view, indices, 4, 3, 22));
  // By hand: the anchors are the first 3 of the indices shuffled by stream (21, 0); each score is
  // the last one of the slate (anchors..., configuration).
  std::vector<int64_t> anchors = indices;
  Random random = random_stream(21, 0);
  random.shuffle(anchors);
  anchors.resize(3);
  torch::NoGradGuard no_grad;
  model->eval();
  for (size_t i = 0; i < indices.size(); ++i) {
    std::vector<int64_t> slate = anchors;
    slate.push_back(indices[i]);
    const torch::Tensor scores = model->forward(make_slate(tensors, view, slate));
    EXPECT_NEAR(anchored[i], scores[3].item<double>(), 1e-5) << i;
  }
  // More anchors than configurations: all of them.
  EXPECT_EQ(score_configs_anchored(model, tensors, view, {2, 5}, 4, 10, 1).size(), 2u);
  // A model without attention, or with the pairwise head, has no anchored scores.
  Ranker plain(testing::small_model_options(data::ConfigKind::Tile));
  EXPECT_THROW(score_configs_anchored(plain, tensors, view, indices, 4, 3, 1), Error);
  EXPECT_THROW(score_configs_anchored(model, tensors, view, indices, 4, 0, 1), Error);
}

}  // namespace
}  // namespace graphcost::model
