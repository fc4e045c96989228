// forward(slate, /*with_constant=*/false): the scores shift by one constant per graph, and a
// ranking loss sees no difference (same value, same gradients).
#include <gtest/gtest.h>

#include "../options_testing.h"
#include "../random_graph.h"
#include "model/forward/ranker.h"
#include "train/losses.h"

namespace graphcost::model {
namespace {

ModelOptions small_layout_options() { return testing::small_model_options(data::ConfigKind::Layout); }

class RankerConstantTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(0);
    // 200 connected nodes with about one operand each, every 23rd configurable: many nodes lie
    // beyond 3 hops of every configurable node.
    graph = testing::random_graph(204, 200, 4, 5, 10, 23, 5);
    tensors = make_graph_tensors(graph);
  }
  Slate layout_slate(int64_t s, uint64_t seed) {
    return testing::random_layout_slate(tensors, s, seed);
  }
  data::Graph graph;
  GraphTensors tensors;
};

TEST_F(RankerConstantTest, ScoresDifferByOneConstantPerGraph) {
  ASSERT_LT(plan_config_reach(tensors, 3, false).reach[3], tensors.num_nodes);
  // Without the constant the shared pass leaves out nodes too (those beyond 6 hops).
  ASSERT_LT(plan_config_reach(tensors, 3, false, false).shared_inputs[0], tensors.num_nodes);
  Ranker model(small_layout_options());
  torch::NoGradGuard no_grad;
  double constant = 0;
  for (uint64_t seed : {1, 2}) {
    // 40 configurations: the inference path splits them into chunks.
    const Slate slate = layout_slate(40, seed);
    const torch::Tensor full = model->forward(slate);
    const torch::Tensor dense = model->forward_dense(slate);
    const torch::Tensor partial = model->forward(slate, /*with_constant=*/false);
    const torch::Tensor shift = full - partial;
    if (seed == 1) constant = shift[0].item<double>();
    EXPECT_GT(std::abs(constant), 1e-3) << "the unreached nodes contribute nothing";
    EXPECT_TRUE(torch::allclose(shift, torch::full_like(shift, constant), 0, 1e-4)) << shift;
    EXPECT_TRUE(torch::allclose(dense - partial, torch::full_like(shift, constant), 0, 1e-4));
  }
}

TEST_F(RankerConstantTest, RankingLossGradientsAreEqual) {
  Ranker model(small_layout_options());
  const Slate slate = layout_slate(8, 3);
  const torch::Tensor runtimes = torch::rand({8}, torch::kFloat64) + 1;
  for (const char* spec : {"listmle", "diffmat", "hinge"}) {
    const auto loss = train::parse_loss_spec(spec);
    ASSERT_TRUE(loss->shift_invariant());
    std::vector<torch::Tensor> grads[2];
    double values[2];
    for (int with_constant = 0; with_constant < 2; ++with_constant) {
      model->zero_grad();
      torch::Tensor value = (*loss)(model->forward(slate, with_constant == 1), runtimes);
      value.backward();
      values[with_constant] = value.item<double>();
      for (auto& p : model->parameters())
        grads[with_constant].push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
    }
    EXPECT_NEAR(values[0], values[1], 1e-5) << spec;
    // The head bias's gradient is zero in both (a shift-invariant loss's score gradients sum
    // to zero) up to float noise of order 1e-5, hence the absolute tolerance.
    for (size_t i = 0; i < grads[0].size(); ++i) {
      EXPECT_TRUE(torch::allclose(grads[0][i], grads[1][i], 1e-3, 1e-4))
          << spec << " parameter " << i << " " << grads[0][i] << " " << grads[1][i];
    }
  }
}

TEST(LossShiftInvariance, MapeNeedsTheConstant) {
  EXPECT_TRUE(train::parse_loss_spec("diffmat:1,listmle:0.5")->shift_invariant());
  EXPECT_FALSE(train::parse_loss_spec("mape")->shift_invariant());
  EXPECT_FALSE(train::parse_loss_spec("diffmat:1,mape:0.1")->shift_invariant());
  EXPECT_TRUE(train::parse_loss_spec("diffmat:1,mape:0")->shift_invariant());
}

}  // namespace
}  // namespace graphcost::model
