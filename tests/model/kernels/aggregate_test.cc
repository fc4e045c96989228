#include "model/kernels/aggregate.h"

#include <gtest/gtest.h>

#include "../random_graph.h"
#include "core/error.h"
#include "model/forward/graph_tensors.h"

namespace graphcost::model {
namespace {

// The naive version: gather every edge's source row, index_add into its target, divide.
torch::Tensor naive_mean_operands(const torch::Tensor& input, const data::Graph& g) {
  const int64_t m = g.num_edges();
  torch::Tensor consumer = torch::empty({m}, torch::kLong),
                operand = torch::empty({m}, torch::kLong);
  for (int64_t e = 0; e < m; ++e) {
    consumer[e] = g.edges[2 * e];
    operand[e] = g.edges[2 * e + 1];
  }
  torch::Tensor sum =
      torch::zeros_like(input).index_add(0, consumer, input.index_select(0, operand));
  torch::Tensor degree = torch::zeros({g.num_nodes}, input.options())
                             .index_add(0, consumer, torch::ones({m}, input.options()));
  std::vector<int64_t> shape(input.dim(), 1);
  shape[0] = g.num_nodes;
  return sum / degree.clamp_min(1).reshape(shape);
}

torch::Tensor mean_operands(const torch::Tensor& input, const GraphTensors& t) {
  return mean_aggregate(input, t.operand_offsets, t.operand_indices, t.user_offsets,
                        t.user_indices);
}

class AggregateTest : public ::testing::Test {
 protected:
  // 200 edges on 40 connected nodes: duplicates certain; 5 isolated nodes.
  data::Graph graph = testing::random_graph(45, 200, 5, 2, 4, 0, 7);
  GraphTensors tensors = make_graph_tensors(graph);
};

TEST_F(AggregateTest, MatchesNaiveFloat2d) {
  torch::manual_seed(1);
  torch::Tensor x = torch::randn({45, 6});
  EXPECT_TRUE(
      torch::allclose(mean_operands(x, tensors), naive_mean_operands(x, graph), 1e-5, 1e-6));
}

TEST_F(AggregateTest, MatchesNaiveDouble3d) {
  torch::manual_seed(2);
  torch::Tensor x = torch::randn({45, 3, 5}, torch::kDouble);
  torch::Tensor out = mean_operands(x, tensors);
  EXPECT_EQ(out.sizes(), x.sizes());
  EXPECT_TRUE(torch::allclose(out, naive_mean_operands(x, graph), 1e-12, 1e-12));
  // Isolated nodes have no operands: zero rows.
  EXPECT_EQ(out[44].abs().sum().item<double>(), 0.0);
}

TEST_F(AggregateTest, MeanOverUsersMatchesNaiveOnReversedEdges) {
  torch::manual_seed(3);
  data::Graph reversed = graph;
  for (int64_t e = 0; e < graph.num_edges(); ++e)
    std::swap(reversed.edges[2 * e], reversed.edges[2 * e + 1]);
  torch::Tensor x = torch::randn({45, 4}, torch::kDouble);
  torch::Tensor out = mean_aggregate(x, tensors.user_offsets, tensors.user_indices,
                                     tensors.operand_offsets, tensors.operand_indices);
  EXPECT_TRUE(torch::allclose(out, naive_mean_operands(x, reversed), 1e-12, 1e-12));
}

TEST_F(AggregateTest, BackwardMatchesNaiveAutograd) {
  torch::manual_seed(4);
  torch::Tensor x = torch::randn({45, 2, 3}, torch::kDouble).requires_grad_(true);
  torch::Tensor w = torch::randn({45, 2, 3}, torch::kDouble);
  (mean_operands(x, tensors) * w).sum().backward();
  torch::Tensor ours = x.grad().clone();
  x.grad().zero_();
  (naive_mean_operands(x, graph) * w).sum().backward();
  EXPECT_TRUE(torch::allclose(ours, x.grad(), 1e-12, 1e-12));
}

TEST_F(AggregateTest, BackwardMatchesFiniteDifferences) {
  data::Graph small = testing::random_graph(12, 30, 2, 1, 2, 0, 11);
  GraphTensors t = make_graph_tensors(small);
  torch::manual_seed(5);
  torch::Tensor x = torch::randn({12, 2, 3}, torch::kDouble);
  torch::Tensor w = torch::randn({12, 2, 3}, torch::kDouble);
  auto loss = [&](const torch::Tensor& input) { return (mean_operands(input, t) * w).sum(); };
  torch::Tensor xg = x.clone().requires_grad_(true);
  loss(xg).backward();
  torch::Tensor analytic = xg.grad();
  const double eps = 1e-6;
  torch::Tensor flat = x.view({-1});
  for (int64_t k = 0; k < flat.size(0); ++k) {
    torch::Tensor plus = x.clone(), minus = x.clone();
    plus.view({-1})[k] += eps;
    minus.view({-1})[k] -= eps;
    const double numeric = (loss(plus).item<double>() - loss(minus).item<double>()) / (2 * eps);
    EXPECT_NEAR(analytic.view({-1})[k].item<double>(), numeric, 1e-7) << "element " << k;
  }
}

TEST_F(AggregateTest, EmptyGraph) {
  data::Graph empty;
  empty.build_adjacency();
  GraphTensors t = make_graph_tensors(empty);
  torch::Tensor x = torch::zeros({0, 4}).requires_grad_(true);
  torch::Tensor out = mean_operands(x, t);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{0, 4}));
  out.sum().backward();
  EXPECT_EQ(x.grad().sizes(), (std::vector<int64_t>{0, 4}));
}

TEST_F(AggregateTest, RejectsBadInputs) {
  torch::Tensor x = torch::randn({45, 4});
  EXPECT_THROW(mean_operands(x.to(torch::kLong), tensors), Error);         // dtype
  EXPECT_THROW(mean_operands(torch::randn({45}), tensors), Error);         // rank
  EXPECT_THROW(mean_operands(torch::randn({4, 45}).t(), tensors), Error);  // not contiguous
  EXPECT_THROW(mean_operands(torch::randn({44, 4}), tensors), Error);      // rows vs CSR
  EXPECT_THROW(mean_aggregate(x, tensors.operand_offsets, tensors.operand_indices.narrow(0, 0, 10),
                              tensors.user_offsets, tensors.user_indices),
               Error);  // offsets do not end at the number of indices
  torch::Tensor bad = tensors.operand_indices.clone();
  bad[0] = 45;
  EXPECT_THROW(
      mean_aggregate(x, tensors.operand_offsets, bad, tensors.user_offsets, tensors.user_indices),
      Error);  // index out of range
}

TEST(CheckCsr, NamesTheFirstBadEntry) {
  const auto message = [](const std::vector<int64_t>& offsets, const std::vector<int64_t>& indices,
                          int64_t targets) -> std::string {
    try {
      check_csr("where", torch::tensor(offsets), torch::tensor(indices), 3, targets, "name");
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message({0, 1, 2, 3}, {2, 0, 1}, 3), "no error");
  EXPECT_EQ(message({0, 1, 1, 3}, {2, 0, 1}, 3), "no error");  // an empty row
  EXPECT_EQ(message({0, 2, 1, 3}, {2, 0, 1}, 3), "where: name: offsets decrease");
  EXPECT_EQ(message({0, 1, 2, 3}, {2, 3, 1}, 3), "where: name: index 3 out of range [0, 3)");
  EXPECT_EQ(message({0, 1, 2, 3}, {2, 0, -1}, 3), "where: name: index -1 out of range [0, 3)");
  EXPECT_EQ(message({0, 1, 2, 3}, {2, 0, 1}, 2), "where: name: index 2 out of range [0, 2)");
}

}  // namespace
}  // namespace graphcost::model
