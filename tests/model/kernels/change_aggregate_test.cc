#include "model/kernels/change_aggregate.h"

#include <gtest/gtest.h>

#include "../random_graph.h"
#include "core/error.h"
#include "model/forward/config_reach.h"
#include "model/forward/graph_tensors.h"
#include "model/kernels/aggregate.h"

namespace graphcost::model {
namespace {

// The composition change_aggregate replaces: P's self block zero-padded to the output rows, and
// the mean over each node's neighbours of P's other blocks zero-padded to every input row.
torch::Tensor padded_means(const torch::Tensor& projected, const ReachLayerCsr& csr, int64_t rows,
                           int64_t inputs) {
  const int64_t h = projected.size(-1) / 3, before = projected.size(0);
  auto pad = [&](const torch::Tensor& part, int64_t total) {
    std::vector<int64_t> shape = part.sizes().vec();
    shape[0] = total - before;
    return torch::cat({part, torch::zeros(shape, part.options())}, 0).contiguous();
  };
  return pad(projected.narrow(-1, 0, h), rows) +
         mean_aggregate(pad(projected.narrow(-1, h, h), inputs), csr.operand_offsets,
                        csr.operand_indices, csr.operand_reverse_offsets,
                        csr.operand_reverse_indices) +
         mean_aggregate(pad(projected.narrow(-1, 2 * h, h), inputs), csr.user_offsets,
                        csr.user_indices, csr.user_reverse_offsets, csr.user_reverse_indices);
}

class ChangeAggregate : public ::testing::Test {
 protected:
  // 90 edges on 55 connected nodes (duplicates), 5 isolated, every 12th node configurable.
  data::Graph graph = testing::random_graph(60, 90, 5, 2, 4, 12, 11);
  GraphTensors tensors = make_graph_tensors(graph);
  ConfigReachPlan plan = plan_config_reach(tensors, 3, false);
};

TEST_F(ChangeAggregate, EqualsPaddedMeanAggregationForwardAndBackward) {
  for (size_t l = 1; l <= 3; ++l) {
    const int64_t before = plan.reach[l - 1], rows = plan.reach[l], inputs = plan.reach[l + 1];
    if (l < 3) {
      ASSERT_LT(before, rows) << "the test graph should spread the change at layer " << l;
    }
    torch::manual_seed(static_cast<int64_t>(l));
    const torch::Tensor p0 = torch::randn({before, 4, 3 * 5});
    torch::Tensor p = p0.clone().requires_grad_(true), q = p0.clone().requires_grad_(true);
    const torch::Tensor fused = change_aggregate(p, plan.layers[l - 1].change, rows);
    const torch::Tensor reference = padded_means(q, plan.layers[l - 1], rows, inputs);
    ASSERT_EQ(fused.sizes(), reference.sizes());
    EXPECT_TRUE(torch::allclose(fused, reference, 1e-6, 1e-6)) << "layer " << l;
    const torch::Tensor upstream = torch::randn(reference.sizes());
    (fused * upstream).sum().backward();
    (reference * upstream).sum().backward();
    EXPECT_TRUE(torch::allclose(p.grad(), q.grad(), 1e-6, 1e-6)) << "layer " << l;
  }
}

TEST_F(ChangeAggregate, BaseIsAddedToEveryConfigurationForwardAndBackward) {
  // The fused base equals adding it afterwards, broadcast over the configurations; its gradient
  // is the upstream gradient summed over them.
  for (size_t l = 1; l <= 3; ++l) {
    const int64_t before = plan.reach[l - 1], rows = plan.reach[l];
    torch::manual_seed(static_cast<int64_t>(10 + l));
    const torch::Tensor p0 = torch::randn({before, 4, 3 * 5}), b0 = torch::randn({rows, 5});
    torch::Tensor p = p0.clone().requires_grad_(true), q = p0.clone().requires_grad_(true);
    torch::Tensor b = b0.clone().requires_grad_(true), c = b0.clone().requires_grad_(true);
    const torch::Tensor fused = change_aggregate(p, plan.layers[l - 1].change, rows, b);
    const torch::Tensor reference =
        change_aggregate(q, plan.layers[l - 1].change, rows) + c.unsqueeze(1);
    EXPECT_TRUE(torch::allclose(fused, reference, 1e-6, 1e-6)) << "layer " << l;
    const torch::Tensor upstream = torch::randn(reference.sizes());
    (fused * upstream).sum().backward();
    (reference * upstream).sum().backward();
    EXPECT_TRUE(torch::allclose(p.grad(), q.grad(), 1e-6, 1e-6)) << "layer " << l;
    ASSERT_TRUE(b.grad().defined());
    EXPECT_TRUE(torch::allclose(b.grad(), upstream.sum(1), 1e-5, 1e-5)) << "layer " << l;
  }
  // 2-D (one configuration): the base is added once.
  const int64_t before = plan.reach[0], rows = plan.reach[1];
  const torch::Tensor p2 = torch::randn({before, 6}), b2 = torch::randn({rows, 2});
  EXPECT_TRUE(torch::allclose(change_aggregate(p2, plan.layers[0].change, rows, b2),
                              change_aggregate(p2, plan.layers[0].change, rows) + b2));
}

TEST_F(ChangeAggregate, HandCheckedOnAChainOfThree) {
  // 0 <- 1 <- 2 (node 1 reads node 0, node 2 reads node 1); node 1 configurable. Labels: 1 first
  // (0 hops), then 0 and 2 (1 hop). One configuration, H = 1: P = [self, op, user] of node 1.
  data::Graph g = testing::random_graph(3, 0, 0, 1, 1, 0, 1);
  g.edges = {1, 0, 2, 1};
  g.configurable_nodes = {1};
  g.build_adjacency();
  const ConfigReachPlan chain = plan_config_reach(make_graph_tensors(g), 1, false);
  ASSERT_EQ(chain.reach[1], 3);
  const torch::Tensor p = torch::tensor({{2.0f, 3.0f, 5.0f}});
  const torch::Tensor out = change_aggregate(p, chain.layers[0].change, 3);
  // Node 1 keeps its self part; node 2's only operand is node 1 (its operand block, 3); node 0's
  // only user is node 1 (its user block, 5).
  const auto order = chain.order;
  for (int64_t r = 0; r < 3; ++r) {
    const int64_t node = order[r].item<int64_t>();
    const float expected = node == 1 ? 2.0f : node == 2 ? 3.0f : 5.0f;
    EXPECT_FLOAT_EQ(out[r][0].item<float>(), expected) << "node " << node;
  }
}

TEST_F(ChangeAggregate, BadInputIsAnError) {
  const ChangeCsr& csr = plan.layers[0].change;
  const int64_t before = plan.reach[0], rows = plan.reach[1];
  EXPECT_THROW(change_aggregate(torch::zeros({before, 2, 7}), csr, rows), Error);  // not 3H
  EXPECT_THROW(change_aggregate(torch::zeros({before + 1, 2, 6}), csr, rows), Error);
  EXPECT_THROW(change_aggregate(torch::zeros({before, 2, 6}, torch::kDouble), csr, rows), Error);
  EXPECT_NO_THROW(change_aggregate(torch::zeros({before, 2, 6}), csr, rows));
  // base: [rows, H] float
  EXPECT_THROW(change_aggregate(torch::zeros({before, 2, 6}), csr, rows, torch::zeros({rows, 3})),
               Error);
  EXPECT_THROW(
      change_aggregate(torch::zeros({before, 2, 6}), csr, rows, torch::zeros({rows + 1, 2})),
      Error);
  EXPECT_THROW(change_aggregate(torch::zeros({before, 2, 6}), csr, rows,
                                torch::zeros({rows, 2}, torch::kDouble)),
               Error);
}

}  // namespace
}  // namespace graphcost::model
