#include "model/forward/segments.h"

#include <gtest/gtest.h>

#include "../options_testing.h"
#include "../random_graph.h"
#include "core/error.h"
#include "model/scoring/predict.h"

namespace graphcost::model {
namespace {

ModelOptions small_options() { return testing::small_model_options(data::ConfigKind::Layout); }

// 64 nodes, configurable nodes only among the first 40 so the last segments have none.
data::Graph test_graph() {
  data::Graph g = testing::random_graph(64, 110, 4, 5, 10, 0, 3);
  for (int32_t v = 0; v < 40; v += 3) g.configurable_nodes.push_back(v);
  return g;
}

torch::Tensor random_layouts(int64_t s, int64_t nc, uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randint(-1, 6, {s, nc, 3}).to(torch::kFloat);
}

// The reference: each segment cut out independently (data layer), its configuration columns
// copied one by one, scored by the dense forward, summed.
torch::Tensor naive_segment_sum(Ranker& model, const data::Graph& graph, int64_t max_nodes,
                                const torch::Tensor& configs) {
  torch::Tensor total = torch::zeros({configs.size(0)});
  for (const data::GraphSegment& seg :
       data::segment_graph(graph, max_nodes, data::SegmentPartition::Contiguous)) {
    GraphTensors tensors = make_graph_tensors(seg.graph);
    Slate slate;
    slate.graph = &tensors;
    slate.config_features =
        torch::zeros({configs.size(0), static_cast<int64_t>(seg.config_columns.size()), 3});
    for (size_t k = 0; k < seg.config_columns.size(); ++k)
      slate.config_features.select(1, k).copy_(configs.select(1, seg.config_columns[k]));
    total = total + model->forward_dense(slate);
  }
  return total;
}

TEST(Segments, SumOverSegmentsMatchesNaiveReference) {
  torch::manual_seed(0);
  Ranker model(small_options());
  const data::Graph graph = test_graph();
  const GraphTensors whole = make_graph_tensors(graph);
  const SegmentedGraph segmented =
      make_segmented_graph(graph, 16, data::SegmentPartition::Contiguous);
  ASSERT_EQ(segmented.segments.size(), 4u);
  EXPECT_FALSE(segmented.segments[3].has_configurable);
  Slate slate;
  slate.graph = &whole;
  slate.config_features = random_layouts(7, whole.configurable_nodes.size(0), 1);
  slate.config_indices = {0, 1, 2, 3, 4, 5, 6};
  const torch::Tensor got = forward_by_segments(model, segmented, slate);
  const torch::Tensor want = naive_segment_sum(model, graph, 16, slate.config_features);
  EXPECT_TRUE(torch::allclose(got, want, 1e-4, 1e-4)) << got << want;
  // Cutting edges changes the scores: the segmented model is not the whole-graph model.
  EXPECT_FALSE(torch::allclose(got, model->forward(slate), 1e-4, 1e-4));
  // One segment is the whole graph.
  const SegmentedGraph one = make_segmented_graph(graph, 64, data::SegmentPartition::Metis);
  EXPECT_TRUE(torch::allclose(forward_by_segments(model, one, slate), model->forward(slate),
                              1e-5, 1e-5));
}

TEST(Segments, GradientsOfTheSegmentSumMatchTheReference) {
  torch::manual_seed(0);
  Ranker model(small_options());
  const data::Graph graph = test_graph();
  const GraphTensors whole = make_graph_tensors(graph);
  const SegmentedGraph segmented =
      make_segmented_graph(graph, 16, data::SegmentPartition::Contiguous);
  Slate slate;
  slate.graph = &whole;
  slate.config_features = random_layouts(4, whole.configurable_nodes.size(0), 2);
  const torch::Tensor weights = torch::tensor({1.0f, -2.0f, 0.5f, 3.0f});
  (forward_by_segments(model, segmented, slate) * weights).sum().backward();
  std::vector<torch::Tensor> got;
  for (const auto& p : model->parameters()) got.push_back(p.grad().clone());
  model->zero_grad();
  (naive_segment_sum(model, graph, 16, slate.config_features) * weights).sum().backward();
  const auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_TRUE(torch::allclose(got[i], params[i].grad(), 1e-4, 1e-4)) << "parameter " << i;
}

TEST(Segments, ScoreConfigsScoresBySegments) {
  torch::manual_seed(0);
  ModelOptions options = small_options();
  options.segment_nodes = 16;
  Ranker model(options);
  const data::Graph graph = test_graph();
  const GraphTensors whole = make_graph_tensors(graph);
  data::ConfigTable table;
  table.kind = data::ConfigKind::Layout;
  table.count = 5;
  table.nodes = whole.configurable_nodes.size(0);
  table.width = 3;
  const torch::Tensor layouts = random_layouts(5, table.nodes, 3);
  for (int64_t k = 0; k < layouts.numel(); ++k)
    table.layout.push_back(static_cast<int8_t>(layouts.flatten()[k].item<float>()));
  const auto segments = segments_for_model(graph, model->options());
  ASSERT_TRUE(segments);
  const std::vector<double> scores = score_configs(model, whole, table.view(), {}, 2, segments.get());
  const torch::Tensor want = naive_segment_sum(model, graph, 16, layouts);
  ASSERT_EQ(scores.size(), 5u);
  for (int64_t j = 0; j < 5; ++j) EXPECT_NEAR(scores[j], want[j].item<double>(), 1e-4);
  EXPECT_FALSE(segments_for_model(graph, small_options()));
}

TEST(Segments, CachesKeepEachSegmentsSharedWorkAcrossSlates) {
  torch::manual_seed(0);
  Ranker model(small_options());
  model->eval();
  const data::Graph graph = test_graph();
  const GraphTensors whole = make_graph_tensors(graph);
  const SegmentedGraph segmented =
      make_segmented_graph(graph, 16, data::SegmentPartition::Contiguous);
  const int64_t nc = whole.configurable_nodes.size(0);
  Slate a, b;
  a.graph = b.graph = &whole;
  a.config_features = random_layouts(3, nc, 4);
  b.config_features = random_layouts(20, nc, 5);  // over one inference chunk
  torch::NoGradGuard no_grad;
  SegmentCaches caches;
  const torch::Tensor got_a = forward_by_segments(model, segmented, a, &caches);
  ASSERT_EQ(caches.size(), segmented.segments.size());
  for (size_t k = 0; k < caches.size(); ++k) {
    EXPECT_EQ(caches[k].graph, &segmented.segments[k].graph) << "segment " << k;
    EXPECT_TRUE(caches[k].plan) << "segment " << k;
  }
  const torch::Tensor kept = caches[0].layers.at(0).shared_pre_activation;
  const torch::Tensor got_b = forward_by_segments(model, segmented, b, &caches);
  EXPECT_TRUE(caches[0].layers.at(0).shared_pre_activation.is_same(kept));
  EXPECT_TRUE(torch::allclose(got_a, naive_segment_sum(model, graph, 16, a.config_features), 1e-4,
                              1e-4));
  EXPECT_TRUE(torch::allclose(got_b, naive_segment_sum(model, graph, 16, b.config_features), 1e-4,
                              1e-4));
}

TEST(Segments, ModelOptionsJsonCarriesTheSegmentSize) {
  ModelOptions options = small_options();
  options.segment_nodes = 4096;
  options.segment_partition = "metis";
  nlohmann::json j = options;
  const ModelOptions back = j.get<ModelOptions>();
  EXPECT_EQ(back.segment_nodes, 4096);
  EXPECT_EQ(back.segment_partition, "metis");
  // Read as given, refused by the options' checks (which building a model runs).
  EXPECT_THROW(check_model_options(nlohmann::json({{"segment_nodes", -1}}).get<ModelOptions>()),
               Error);
  EXPECT_THROW(
      check_model_options(nlohmann::json({{"segment_partition", "louvain"}}).get<ModelOptions>()),
      Error);
  EXPECT_THROW(Ranker(nlohmann::json({{"segment_nodes", -1}}).get<ModelOptions>()), Error);
}

}  // namespace
}  // namespace graphcost::model
