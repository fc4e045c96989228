#include "model/forward/config_classes.h"

#include <gtest/gtest.h>

#include <deque>
#include <limits>
#include <vector>

#include "../gradient_testing.h"
#include "../options_testing.h"
#include "../random_graph.h"
#include "core/error.h"
#include "model/forward/config_reach.h"
#include "model/kernels/change_aggregate.h"

namespace graphcost::model {
namespace {

torch::Tensor longs(std::vector<int64_t> values) {
  return torch::tensor(values, torch::kLong);
}

std::vector<int64_t> to_vector(const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Turns one model's row sharing off for a scope (RankerImpl::set_share_rows); other models keep
// theirs.
struct SharingOff {
  explicit SharingOff(Ranker& model, const Ranker& other) : model(model) {
    model->set_share_rows(false);
    EXPECT_TRUE(other->share_rows());
  }
  ~SharingOff() { model->set_share_rows(true); }
  Ranker& model;
};

TEST(ConfigClasses, ConfigurableNodesByValueInFirstOccurrenceOrder) {
  // [S = 4, nc = 2, F = 2]; node 1 holds -0 in one configuration and +0 in another: one value.
  const torch::Tensor values = torch::tensor({0.f, 1.f, 0.f, 0.f,   //
                                              0.f, 1.f, -0.f, 0.f,  //
                                              2.f, 1.f, 1.f, 1.f,   //
                                              0.f, 1.f, 1.f, 1.f})
                                   .view({4, 2, 2});
  const torch::Tensor classes = configurable_node_classes(values, longs({1, 0}));
  EXPECT_EQ(to_vector(classes), (std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 0}));
  EXPECT_THROW(configurable_node_classes(values, longs({2})), Error);
  EXPECT_THROW(configurable_node_classes(values.to(torch::kDouble), longs({0})), Error);
}

TEST(ConfigClasses, NextHopCombinesSelfOperandsAndUsersByHand) {
  // Rows 0 and 1 were reached before the hop, row 2 is reached by it. Row 0 reads itself and
  // operand 1; row 1 itself and user 0; row 2 operand 0 only.
  ChangeCsr csr;
  csr.operand_offsets = longs({0, 1, 1, 2});
  csr.operand_indices = longs({1, 0});
  csr.user_offsets = longs({0, 0, 1, 1});
  csr.user_indices = longs({0});
  const torch::Tensor previous = longs({0, 0, 1, 0, 2,  //
                                        0, 1, 0, 1, 1})
                                     .view({2, 5});
  const torch::Tensor next = next_hop_classes(previous, csr, 3);
  // Row 0: pairs (0,0) (0,1) (1,0) (0,1) (2,1); row 1: (0,0) (1,0) (0,1) (1,0) (1,2); row 2: row 0.
  EXPECT_EQ(to_vector(next), (std::vector<int64_t>{0, 1, 2, 1, 3,  //
                                                   0, 1, 2, 1, 3,  //
                                                   0, 0, 1, 0, 2}));
  EXPECT_THROW(next_hop_classes(previous, csr, 4), Error);
  csr.operand_indices = longs({1, 2});  // an entry past the rows reached before
  EXPECT_THROW(next_hop_classes(previous, csr, 3), Error);
}

// Against the definition, on a random graph: after k hops two configurations share a class at a
// row iff they agree at every configurable node within k hops of it (breadth-first search).
TEST(ConfigClasses, ClassesAreAgreementWithinKHops) {
  const data::Graph graph = testing::random_graph(48, 60, 3, 5, 10, 5, 11);
  const GraphTensors tensors = make_graph_tensors(graph);
  const int64_t layers = 3, s = 12, nc = tensors.configurable_nodes.size(0);
  const ConfigReachPlan plan = plan_config_reach(tensors, layers, false);
  torch::manual_seed(4);
  // Two columns with values in {0, 1}: four layouts per node, so configurations collide.
  const torch::Tensor values = torch::randint(0, 2, {s, nc, 2}).to(torch::kFloat);
  const std::vector<int64_t> order = to_vector(plan.order);
  std::vector<int64_t> position_of(static_cast<size_t>(tensors.num_nodes), -1);
  for (int64_t p = 0; p < nc; ++p) position_of[graph.configurable_nodes[p]] = p;

  torch::Tensor classes = configurable_node_classes(values, plan.config_position);
  int64_t shared_pairs = 0;
  for (int64_t k = 0; k <= layers; ++k) {
    if (k > 0) classes = next_hop_classes(classes, plan.layers[k - 1].change, plan.reach[k]);
    ASSERT_EQ(classes.size(0), plan.reach[k]);
    for (int64_t r = 0; r < plan.reach[k]; ++r) {
      // Hop distances from node order[r], both directions.
      std::vector<int64_t> distance(static_cast<size_t>(tensors.num_nodes),
                                    std::numeric_limits<int64_t>::max());
      std::deque<int64_t> queue{order[r]};
      distance[order[r]] = 0;
      while (!queue.empty()) {
        const int64_t v = queue.front();
        queue.pop_front();
        for (const data::Csr* csr : {&graph.operands, &graph.users}) {
          for (int64_t e = csr->offsets[v]; e < csr->offsets[v + 1]; ++e) {
            const int64_t u = csr->indices[e];
            if (distance[u] > distance[v] + 1) {
              distance[u] = distance[v] + 1;
              queue.push_back(u);
            }
          }
        }
      }
      for (int64_t a = 0; a < s; ++a) {
        for (int64_t b = 0; b < s; ++b) {
          bool agree = true;
          for (int64_t v = 0; v < tensors.num_nodes; ++v) {
            if (position_of[v] < 0 || distance[v] > k) continue;
            agree = agree && torch::equal(values[a][position_of[v]], values[b][position_of[v]]);
          }
          const bool same = classes[r][a].item<int64_t>() == classes[r][b].item<int64_t>();
          EXPECT_EQ(same, agree) << "hops " << k << " row " << r << " configs " << a << ", " << b;
          shared_pairs += (same && a != b);
        }
      }
    }
  }
  EXPECT_GT(shared_pairs, 0);  // the test would not see a wrong merge otherwise
}

TEST(ConfigClasses, RowSharingPicksFirstMembersAndSpreadsBack) {
  const RowSharing sharing = row_sharing(longs({0, 0, 1, 0, 1, 0}).view({2, 3}));
  EXPECT_EQ(sharing.distinct, 4);
  EXPECT_EQ(to_vector(sharing.representatives), (std::vector<int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(to_vector(sharing.spread), (std::vector<int64_t>{0, 0, 1, 2, 3, 2}));
  EXPECT_THROW(row_sharing(longs({1, 0}).view({1, 2})), Error);  // not first-occurrence order
}

// On class entries the change aggregation gives what change_aggregate gives on every
// (row, configuration), and the same gradient of the entries' projected change.
TEST(ConfigClasses, ClassChangeAggregateMatchesEveryRowAggregated) {
  const data::Graph graph = testing::random_graph(48, 60, 3, 5, 10, 5, 11);
  const GraphTensors tensors = make_graph_tensors(graph);
  const int64_t s = 12, nc = tensors.configurable_nodes.size(0), h = 5;
  const ConfigReachPlan plan = plan_config_reach(tensors, 3, false);
  torch::manual_seed(4);
  const torch::Tensor values = torch::randint(0, 2, {s, nc, 2}).to(torch::kFloat);
  torch::Tensor classes = configurable_node_classes(values, plan.config_position);
  for (int64_t l = 1; l <= 3; ++l) {
    SCOPED_TRACE(l);
    const ChangeCsr& change = plan.layers[l - 1].change;
    const ClassRows before = class_rows(classes);
    classes = next_hop_classes(classes, change, plan.reach[l]);
    const ClassRows after = class_rows(classes);
    ASSERT_LT(after.sharing.distinct, classes.numel());
    EXPECT_TRUE(torch::equal(after.rows_of * s + after.configs_of, after.sharing.representatives));
    const torch::Tensor projected =
        torch::randn({before.sharing.distinct, 3 * h}).requires_grad_(true);
    const torch::Tensor weights = torch::randn({plan.reach[l], s, h});
    const torch::Tensor by_class =
        class_change_aggregate(projected, before, after, change)
            .index_select(0, after.sharing.spread)
            .view({plan.reach[l], s, h});
    const torch::Tensor every_row = change_aggregate(
        projected.index_select(0, before.sharing.spread).view({before.rows, s, 3 * h}), change,
        plan.reach[l]);
    EXPECT_TRUE(torch::allclose(by_class, every_row, 1e-5, 1e-6));
    const torch::Tensor grad = torch::autograd::grad({(by_class * weights).sum()}, {projected})[0];
    const torch::Tensor expected =
        torch::autograd::grad({(every_row * weights).sum()}, {projected})[0];
    EXPECT_TRUE(torch::allclose(grad, expected, 1e-4, 1e-5));
    EXPECT_THROW(class_change_aggregate(projected.narrow(0, 1, before.sharing.distinct - 1),
                                        before, after, change),
                 Error);
  }
}

// A long chain with short skips (every layer after the first by its change) and a slate like a
// "default" search: each configuration changes one or two nodes of a common one, so most rows
// share classes. Scores and every parameter's gradient equal every row computed and the dense
// forward, for the last layer's residual too.
TEST(ConfigClasses, RankerSharingClassesKeepsScoresAndGradients) {
  torch::manual_seed(0);
  const data::Graph graph = testing::chain_graph(90, 5, 12);
  const GraphTensors tensors = make_graph_tensors(graph);
  const int64_t s = 10, nc = tensors.configurable_nodes.size(0);
  torch::manual_seed(9);
  torch::Tensor values = torch::randint(-1, 6, {nc, 3}).to(torch::kFloat).repeat({s, 1, 1});
  for (int64_t c = 1; c < s; ++c) {
    for (int64_t change = 0; change < 1 + c % 2; ++change)
      values[c][(c * 5 + change * 3) % nc] = torch::randint(-1, 6, {3}).to(torch::kFloat);
  }
  Slate slate;
  slate.graph = &tensors;
  slate.config_features = values;

  // The slate shares rows at every layer (else the test would not exercise the sharing).
  ModelOptions options = testing::small_model_options(data::ConfigKind::Layout);
  options.hidden = {8, 8, 8, 8};
  const ConfigReachPlan plan = plan_config_reach(tensors, 4, false);
  torch::Tensor classes = configurable_node_classes(values, plan.config_position);
  for (int64_t l = 1; l <= 4; ++l) {
    if (l > 1) classes = next_hop_classes(classes, plan.layers[l - 2].change, plan.reach[l - 1]);
    ASSERT_LE(plan.reach[l - 1] * 10, plan.reach[l] * 9) << l;  // layer l by its change
    ASSERT_LE(row_sharing(classes).distinct * 10, classes.numel() * 9) << l;
  }

  for (const char* activation : {"leaky_relu", "tanh"}) {
    SCOPED_TRACE(activation);
    options.activation = activation;
    Ranker model(options), other(options);
    for (bool with_constant : {true, false}) {
      const torch::Tensor weights = torch::linspace(-1.0, 2.0, s);
      const torch::Tensor shared = model->forward(slate, with_constant);
      torch::Tensor every_row;
      {
        SharingOff off(model, other);
        every_row = model->forward(slate, with_constant);
      }
      testing::expect_same_scores_and_gradients(model, shared, every_row, weights);
      if (with_constant) {
        const torch::Tensor again = model->forward(slate, with_constant);
        testing::expect_same_scores_and_gradients(model, again, model->forward_dense(slate),
                                                  weights);
      }
    }
  }
  // With dropout in training the members of a class differ: sharing stays off, and the scores
  // equal the unshared ones under the same random draws.
  options.dropout = 0.3;
  Ranker model(options), other(options);
  model->train();
  torch::manual_seed(5);
  const torch::Tensor with_dropout = model->forward(slate);
  torch::manual_seed(5);
  torch::Tensor every_row;
  {
    SharingOff off(model, other);
    every_row = model->forward(slate);
  }
  EXPECT_TRUE(torch::equal(with_dropout, every_row));
}

// Graphs where the configurations' reach saturates: layers the plain path runs directly on the
// reached rows run by class on the change, also once the reach has covered every node (the
// shared state is then no longer updated).
TEST(ConfigClasses, RankerSharingOnSaturatingReachKeepsScoresAndGradients) {
  struct Case {
    data::Graph graph;
    bool reaches_every_node;
  };
  // 60 connected nodes and 4 isolated ones (reach saturates below n); 30 densely connected nodes
  // (the reach covers all of them before the last layer).
  const std::vector<Case> cases = {{testing::random_graph(64, 90, 4, 5, 10, 9, 3), false},
                                   {testing::random_graph(30, 150, 0, 5, 10, 6, 5), true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.graph.num_nodes);
    const GraphTensors tensors = make_graph_tensors(c.graph);
    ModelOptions options = testing::small_model_options(data::ConfigKind::Layout);
    options.hidden = {8, 8, 8, 8};
    const ConfigReachPlan plan = plan_config_reach(tensors, 4, false);
    const int64_t s = 8, nc = tensors.configurable_nodes.size(0);
    torch::manual_seed(3);
    torch::Tensor values = torch::randint(-1, 6, {nc, 3}).to(torch::kFloat).repeat({s, 1, 1});
    // One configuration changes a node of the common one, the others are copies: classes stay
    // shared at every hop.
    values[1][0] = torch::randint(-1, 6, {3}).to(torch::kFloat);
    // Some layer l is reached by class (every level before it shares rows) and saturated.
    bool saturated_by_class = false;
    torch::Tensor classes = configurable_node_classes(values, plan.config_position);
    for (int64_t l = 1; l <= 4 && row_sharing(classes).distinct * 10 <= classes.numel() * 9; ++l) {
      if (l >= 2) saturated_by_class |= plan.reach[l - 1] * 10 > plan.reach[l] * 9;
      if (l < 4) classes = next_hop_classes(classes, plan.layers[l - 1].change, plan.reach[l]);
    }
    ASSERT_TRUE(saturated_by_class);
    ASSERT_EQ(plan.reach[2] == tensors.num_nodes, c.reaches_every_node);
    Slate slate;
    slate.graph = &tensors;
    slate.config_features = values;
    Ranker model(options), other(options);
    const torch::Tensor weights = torch::linspace(-1.0, 2.0, s);
    for (bool with_constant : {true, false}) {
      const torch::Tensor shared = model->forward(slate, with_constant);
      torch::Tensor every_row;
      {
        SharingOff off(model, other);
        every_row = model->forward(slate, with_constant);
      }
      testing::expect_same_scores_and_gradients(model, shared, every_row, weights);
    }
    testing::expect_same_scores_and_gradients(model, model->forward(slate),
                                              model->forward_dense(slate), weights);
  }
}

}  // namespace
}  // namespace graphcost::model
