#include "model/layers/graph_norm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../options_testing.h"
#include "../random_graph.h"
#include "model/forward/ranker.h"

namespace graphcost::model {
namespace {

TEST(GraphNorm, MatchesNaiveLoops) {
  torch::manual_seed(1);
  GraphNorm norm(4);
  {
    torch::NoGradGuard no_grad;
    norm->alpha.copy_(torch::tensor({1.0f, 0.5f, 0.0f, 2.0f}));
    norm->gamma.copy_(torch::tensor({1.0f, 2.0f, -1.0f, 0.5f}));
    norm->beta.copy_(torch::tensor({0.0f, 1.0f, 3.0f, -2.0f}));
  }
  const torch::Tensor x = torch::randn({5, 3, 4}) * 3 + 1;
  const torch::Tensor y = norm->forward(x);
  const torch::Tensor xd = x.to(torch::kFloat64);
  for (int64_t s = 0; s < 3; ++s) {
    for (int64_t f = 0; f < 4; ++f) {
      double mean = 0;
      for (int64_t v = 0; v < 5; ++v) mean += xd[v][s][f].item<double>() / 5;
      const double shift = norm->alpha[f].item<double>() * mean;
      double variance = 0;
      for (int64_t v = 0; v < 5; ++v) variance += std::pow(xd[v][s][f].item<double>() - shift, 2) / 5;
      for (int64_t v = 0; v < 5; ++v) {
        const double expected = norm->gamma[f].item<double>() * (xd[v][s][f].item<double>() - shift) /
                                    std::sqrt(variance + GraphNormImpl::kEpsilon) +
                                norm->beta[f].item<double>();
        EXPECT_NEAR(y[v][s][f].item<double>(), expected, 1e-5) << v << " " << s << " " << f;
      }
    }
  }
}

class GraphNormRankerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph = testing::random_graph(64, 90, 4, 5, 10, 9, 3);
    tensors = make_graph_tensors(graph);
  }
  Slate layout_slate(int64_t s, uint64_t seed) {
    return testing::random_layout_slate(tensors, s, seed);
  }
  data::Graph graph;
  GraphTensors tensors;
};

TEST_F(GraphNormRankerTest, ScoresAreIndependentPerConfigurationAndChunked) {
  ModelOptions o = testing::small_model_options(data::ConfigKind::Layout);
  o.graph_norm = true;
  torch::manual_seed(2);
  Ranker model(o);
  Slate slate = layout_slate(20, 3);
  const torch::Tensor scores = model->forward(slate);
  for (int64_t i : {0, 7, 19}) {
    Slate one = slate;
    one.config_features = slate.config_features.narrow(0, i, 1);
    EXPECT_NEAR(model->forward(one).item<float>(), scores[i].item<float>(), 1e-4) << i;
  }
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::allclose(model->forward(slate), scores, 1e-5, 1e-5));
}

TEST_F(GraphNormRankerTest, NormalisesTheDenseNodeStates) {
  // With the last norm's gamma = 0 every final node state is its beta, whatever the
  // configuration: each score is n * head(beta).
  ModelOptions o = testing::small_model_options(data::ConfigKind::Layout);
  o.graph_norm = true;
  o.hidden = {8, 8};  // residual in the second layer
  torch::manual_seed(4);
  Ranker model(o);
  auto params = model->named_parameters();
  {
    torch::NoGradGuard no_grad;
    params["norm1.gamma"].zero_();
    params["norm1.beta"].copy_(torch::arange(8).to(torch::kFloat) / 8);
  }
  Slate slate = layout_slate(3, 5);
  const torch::Tensor scores = model->forward(slate);
  const torch::Tensor beta = params["norm1.beta"];
  const double expected = (torch::dot(params["head.weight"][0], beta) + params["head.bias"][0])
                              .item<double>() *
                          static_cast<double>(tensors.num_nodes);
  for (int64_t i = 0; i < 3; ++i) EXPECT_NEAR(scores[i].item<double>(), expected, 1e-3);
  // alpha, gamma, beta per layer.
  o.graph_norm = false;
  EXPECT_EQ(model->parameter_count(), Ranker(o)->parameter_count() + 2 * 3 * 8);
}

}  // namespace
}  // namespace graphcost::model
