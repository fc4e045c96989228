#include "model/layers/config_mlp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../options_testing.h"
#include "../random_graph.h"
#include "core/error.h"
#include "model/forward/ranker.h"

namespace graphcost::model {
namespace {

ModelOptions mlp_options() {
  ModelOptions o = testing::small_model_options(data::ConfigKind::Tile);
  o.architecture = "mlp";
  o.node_feature_width = 3;
  o.config_width = 2;
  o.hidden = {4, 3};
  o.activation = "leaky_relu";
  return o;
}

torch::Tensor parameter(Ranker& model, const std::string& name) {
  return model->named_parameters()[name].to(torch::kFloat64);
}

// The network written out with loops in double precision.
double naive_score(Ranker& model, const GraphTensors& g, const std::vector<double>& config) {
  std::vector<double> x;
  torch::Tensor features = g.node_features.to(torch::kFloat64);
  for (int64_t f = 0; f < features.size(1); ++f) {
    double sum = 0;
    for (int64_t v = 0; v < g.num_nodes; ++v) sum += features[v][f].item<double>();
    x.push_back(sum / static_cast<double>(g.num_nodes));
  }
  for (double c : config) x.push_back(c == 0 ? 0.0 : std::copysign(std::log1p(std::abs(c)), c));
  for (int l = 0; l < 2; ++l) {
    torch::Tensor w = parameter(model, "mlp.layer" + std::to_string(l) + ".weight");
    torch::Tensor b = parameter(model, "mlp.layer" + std::to_string(l) + ".bias");
    std::vector<double> y(w.size(0));
    for (int64_t k = 0; k < w.size(0); ++k) {
      double sum = b[k].item<double>();
      for (int64_t j = 0; j < w.size(1); ++j) sum += w[k][j].item<double>() * x[j];
      y[k] = sum > 0 ? sum : 0.01 * sum;
    }
    x = y;
  }
  torch::Tensor w = parameter(model, "score_head.weight");
  double score = parameter(model, "score_head.bias")[0].item<double>();
  for (size_t j = 0; j < x.size(); ++j) score += w[0][j].item<double>() * x[j];
  return score;
}

TEST(ConfigMlp, ForwardMatchesNaiveNetworkWithTheSameWeights) {
  torch::manual_seed(3);
  Ranker model(mlp_options());
  // 4 weights + 4 biases (x 5 inputs), 3 x 4 + 3, score head 3 + 1.
  EXPECT_EQ(model->parameter_count(), 5 * 4 + 4 + 4 * 3 + 3 + 3 + 1);
  data::Graph graph = testing::random_graph(3, 2, 0, 3, 10, 0, 7);
  GraphTensors g = make_graph_tensors(graph);
  Slate slate;
  slate.graph = &g;
  const std::vector<std::vector<double>> configs = {{1, -4}, {0, 8}, {3, 3}, {-0.5, 100}};
  slate.config_features = torch::tensor({1.0f, -4.0f, 0.0f, 8.0f, 3.0f, 3.0f, -0.5f, 100.0f})
                              .reshape({4, 2});
  const torch::Tensor scores = model->forward(slate);
  ASSERT_EQ(scores.sizes(), (std::vector<int64_t>{4}));
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_NEAR(scores[i].item<double>(), naive_score(model, g, configs[i]), 1e-5) << i;
  EXPECT_EQ(model->embed(slate).sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_GT((scores.max() - scores.min()).item<float>(), 0.0f);  // not a constant network
}

TEST(ConfigMlp, OneNodeGraphUsesItsFeatures) {
  torch::manual_seed(4);
  Ranker model(mlp_options());
  data::Graph a = testing::random_graph(1, 0, 1, 3, 10, 0, 1);
  data::Graph b = testing::random_graph(1, 0, 1, 3, 10, 0, 2);
  GraphTensors ga = make_graph_tensors(a), gb = make_graph_tensors(b);
  Slate slate;
  slate.graph = &ga;
  slate.config_features = torch::tensor({2.0f, 4.0f}).reshape({1, 2});
  const double score_a = model->forward(slate).item<double>();
  EXPECT_NEAR(score_a, naive_score(model, ga, {2, 4}), 1e-5);
  slate.graph = &gb;
  EXPECT_NE(model->forward(slate).item<double>(), score_a);  // the device column differs
}

TEST(ConfigMlp, NeedsTileConfigurationsAndRejectsGraphNorm) {
  ModelOptions layout = mlp_options();
  layout.kind = data::ConfigKind::Layout;
  EXPECT_THROW(Ranker{layout}, Error);
  ModelOptions norm = mlp_options();
  norm.graph_norm = true;
  EXPECT_THROW(Ranker{norm}, Error);
  ModelOptions unknown = mlp_options();
  unknown.architecture = "transformer";
  EXPECT_THROW(Ranker{unknown}, Error);
}

}  // namespace
}  // namespace graphcost::model
