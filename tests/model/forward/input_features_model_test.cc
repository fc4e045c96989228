// The optional node inputs of docs/features.md through graph tensors and the ranker.
#include <gtest/gtest.h>

#include <cmath>

#include "../gradient_testing.h"
#include "../random_graph.h"
#include "core/error.h"
#include "data/input_features.h"
#include "model/forward/config_encoding.h"
#include "model/forward/ranker.h"

namespace graphcost::model {
namespace {

// A random graph with the 140 TpuGraphs columns, where every node has a valid shape and layout.
data::Graph tpugraphs_like_graph() {
  data::Graph g = testing::random_graph(64, 90, 4, 140, 10, 9, 3);
  for (int64_t v = 0; v < g.num_nodes; ++v) {
    float* row = g.node_features.data() + v * 140;
    const int64_t rank = v % 5;
    for (int64_t k = 0; k < 6; ++k) {
      row[data::kShapeDimsColumn + k] = k < rank ? static_cast<float>(40 * (v + k) + 1) : 0.0f;
      row[data::kMinorToMajorColumn + k] = k < rank ? static_cast<float>(rank - 1 - k) : 0.0f;
    }
  }
  return g;
}

ModelOptions options_for(const GraphFeatureOptions& f) {
  ModelOptions o;
  o.node_feature_width = 140;
  o.config_width = 3;
  o.num_opcodes = 10;
  o.opcode_embedding = 4;
  o.node_feature_dim = 3;
  o.hidden = {8, 8, 6};
  o.minus_one_padding = f.minus_one_padding;
  o.shape_mod128 = f.shape_mod128;
  o.random_walk_steps = f.random_walk_steps;
  o.virtual_node = f.virtual_node;
  return o;
}

GraphFeatureOptions all_on() {
  GraphFeatureOptions f;
  f.minus_one_padding = true;
  f.shape_mod128 = true;
  f.random_walk_steps = 3;
  f.virtual_node = true;
  return f;
}

// layout_shapes: a configurable node 2 (output [8, 300, 5]) reading node 0 ([8, 256]) then node 1
// ([256]); node 3 is configurable with no operands. Each tensor's two minor dims under the
// configured layout (or the default order, minor-most = the last dim) and log2 of its padding to
// (8, 128) tiles, by hand.
TEST(InputFeatures, LayoutShapesGiveTheMinorDimsAndPaddingOfEachConfiguredTensor) {
  data::Graph g;
  g.num_nodes = 4;
  g.feature_width = 140;
  g.node_features.assign(4 * 140, 0.0f);
  g.opcodes = {1, 1, 2, 3};
  const std::vector<std::vector<float>> shapes = {{8, 256}, {256}, {8, 300, 5}, {}};
  for (int64_t v = 0; v < 4; ++v)
    for (size_t k = 0; k < shapes[v].size(); ++k)
      g.node_features[v * 140 + data::kShapeDimsColumn + k] = shapes[v][k];
  g.edges = {2, 0, 2, 1};
  g.configurable_nodes = {2, 3};
  g.build_adjacency();
  GraphFeatureOptions f;
  f.layout_shapes = true;
  const GraphTensors t = make_graph_tensors(g, f);
  ASSERT_EQ(t.config_dims.sizes(), (std::vector<int64_t>{2, 3, 6}));
  EXPECT_TRUE(
      torch::equal(t.config_dims[0][1], torch::tensor({8.0f, 256.0f, 0.0f, 0.0f, 0.0f, 0.0f})));
  EXPECT_EQ(t.config_dims[1].abs().sum().item<float>(), 0.0f);  // no operands, no shape
  // Configuration 0: every layout the default. Configuration 1: output (0, 2, 1): dim 0 (8)
  // minor, then dim 2 (5); input (0, 1): dim 0 (8) minor; kernel (0): its only dim.
  std::vector<float> values(2 * 2 * 18, -1.0f);
  const float chosen[] = {0, 2, 1, -1, -1, -1, 0, 1, -1, -1, -1, -1, 0, -1, -1, -1, -1, -1};
  std::copy(chosen, chosen + 18, values.begin() + 2 * 18);
  const torch::Tensor configs = torch::tensor(values).reshape({2, 2, 18});
  const torch::Tensor columns = layout_shape_columns(configs, t.config_dims);
  ASSERT_EQ(columns.sizes(), (std::vector<int64_t>{2, 2, kLayoutShapeColumns}));
  auto l = [](double x) { return static_cast<float>(std::log1p(x)); };
  auto l2 = [](double x) { return static_cast<float>(std::log2(x)); };
  // Default: output minor 5 then 300 -> 128 * 304 / 1500; input minor 256 then 8 -> no
  // padding; kernel [256]: rank 1, 256 -> 256.
  const torch::Tensor default_layout =
      torch::tensor({l(5), l(300), l2(128.0 * 304 / 1500), l(256), l(8), 0.0f, l(256), l(1), 0.0f});
  // Chosen: output minor 8 then 5 -> 128 * 8 / 40; input minor 8 then 256 -> 128 * 256 / 2048.
  const torch::Tensor chosen_layout = torch::tensor(
      {l(8), l(5), l2(128.0 * 8 / 40), l(8), l(256), l2(128.0 * 256 / 2048), l(256), l(1), 0.0f});
  EXPECT_TRUE(torch::allclose(columns[0][0], default_layout, 0, 1e-6)) << columns[0][0];
  EXPECT_TRUE(torch::allclose(columns[1][0], chosen_layout, 0, 1e-6)) << columns[1][0];
  EXPECT_EQ(columns.select(1, 1).abs().sum().item<float>(), 0.0f);  // node 3: nothing laid out
  // Through a model: the columns sit between the one-hot values and the indicator.
  ModelOptions o;
  o.node_feature_width = 140;
  o.config_width = 18;
  o.num_opcodes = 4;
  o.hidden = {8};
  o.layout_shapes = "on";
  EXPECT_EQ(config_input_width(o), 18 * data::kLayoutValues + kLayoutShapeColumns + 1);
  Ranker model(o);
  Slate slate;
  slate.graph = &t;
  slate.config_features = configs;
  const torch::Tensor encoded = model->encode_configs(slate);
  ASSERT_EQ(encoded.size(2), config_input_width(o));
  EXPECT_TRUE(
      torch::equal(encoded.narrow(2, 18 * data::kLayoutValues, kLayoutShapeColumns), columns));
  EXPECT_TRUE(torch::allclose(model->forward(slate), model->forward_dense(slate), 1e-4, 1e-5));
  // Graph tensors built without the shapes are refused by such a model.
  const GraphTensors plain = make_graph_tensors(g);
  slate.graph = &plain;
  EXPECT_THROW(model->encode_configs(slate), Error);
}

// The rank rule is data::shape_rank's, minus_one_padded_layout's: a zero-sized dim before a
// non-zero one counts. A tensor [5, 0, 3] has rank 3 and no elements, so its default layout (minor
// 3, then the zero-sized dim) gives zeros, not a division by zero; a layout whose two minor dims
// are non-zero ((0, 2, 1): 5 then 3) still gives them, because the dims exist.
TEST(InputFeatures, LayoutShapesTakeTheRankOfShapeRankAndSkipEmptyTensors) {
  const float dims[] = {5, 0, 3, 0, 0, 0};
  EXPECT_EQ(data::shape_rank(dims), 3);
  const torch::Tensor config_dims = torch::zeros({1, 3, 6});
  for (int k = 0; k < 6; ++k) config_dims[0][0][k] = dims[k];
  std::vector<float> values(2 * 18, -1.0f);
  values[18 + 0] = 0, values[18 + 1] = 2, values[18 + 2] = 1;  // configuration 1: output (0, 2, 1)
  const torch::Tensor columns =
      layout_shape_columns(torch::tensor(values).reshape({2, 1, 18}), config_dims);
  EXPECT_EQ(columns[0].abs().sum().item<float>(), 0.0f);
  auto l = [](double x) { return static_cast<float>(std::log1p(x)); };
  const torch::Tensor expected =
      torch::tensor({l(5), l(3), static_cast<float>(std::log2(128.0 * 8 / 15)), 0.0f, 0.0f, 0.0f,
                     0.0f, 0.0f, 0.0f});
  EXPECT_TRUE(torch::allclose(columns[1][0], expected, 0, 1e-6)) << columns[1][0];
  EXPECT_TRUE(torch::isfinite(columns).all().item<bool>());
}

// layout_shapes "auto" is on exactly for layout data with the 140 TpuGraphs columns and no
// segments; "on" and "off" stay as given; a never-resolved "auto" gives no columns; runs written
// when the option was a bool read as "on" and "off".
TEST(InputFeatures, LayoutShapesAutoResolvesFromTheDataAndOldBoolsStillRead) {
  ModelOptions o;
  EXPECT_EQ(o.layout_shapes, "auto");
  EXPECT_FALSE(uses_layout_shapes(o));
  EXPECT_EQ(config_input_width(o), 18 * data::kLayoutValues + 1);
  EXPECT_EQ(resolved_layout_shapes(o), "on");  // layout, 140 columns, whole graphs
  ModelOptions tile = o;
  tile.kind = data::ConfigKind::Tile;
  EXPECT_EQ(resolved_layout_shapes(tile), "off");
  ModelOptions reduced = o;
  reduced.node_feature_width = 70;
  EXPECT_EQ(resolved_layout_shapes(reduced), "off");
  ModelOptions segments = o;
  segments.segment_nodes = 64;
  EXPECT_EQ(resolved_layout_shapes(segments), "off");
  ModelOptions off = o;
  off.layout_shapes = "off";
  EXPECT_EQ(resolved_layout_shapes(off), "off");
  reduced.layout_shapes = "on";
  EXPECT_EQ(resolved_layout_shapes(reduced), "on");  // refused later, by the graph tensors
  o.layout_shapes = "on";
  EXPECT_TRUE(uses_layout_shapes(o));
  EXPECT_EQ(config_input_width(o), 18 * data::kLayoutValues + kLayoutShapeColumns + 1);
  for (const bool old : {true, false}) {
    nlohmann::json j = ModelOptions{};
    j["layout_shapes"] = old;
    EXPECT_EQ(j.get<ModelOptions>().layout_shapes, old ? "on" : "off");
  }
  nlohmann::json bad = ModelOptions{};
  bad["layout_shapes"] = "sometimes";
  EXPECT_THROW(check_model_options(bad.get<ModelOptions>()), Error);
}

TEST(InputFeatures, GraphTensorsCarryTheExtraInputs) {
  const data::Graph graph = tpugraphs_like_graph();
  GraphFeatureOptions f = graph_feature_options(options_for(all_on()));
  EXPECT_EQ(f.virtual_opcode, 10);
  EXPECT_EQ(extra_feature_width(f), 15);
  const GraphTensors t = make_graph_tensors(graph, f);
  ASSERT_EQ(t.num_nodes, 65);
  ASSERT_EQ(t.node_features.sizes(), (std::vector<int64_t>{65, 155}));
  EXPECT_EQ(t.opcodes[64].item<int64_t>(), 10);
  EXPECT_EQ(t.node_features[64].abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(t.node_features.slice(1, 134, 140).abs().sum().item<float>(), 0.0f);
  ASSERT_EQ(t.node_layout.sizes(), (std::vector<int64_t>{65, 6}));
  EXPECT_TRUE(torch::equal(t.node_layout[64], torch::full({6}, -1.0f)));
  // Node 7 has rank 2: layout [1, 0], then padding.
  EXPECT_TRUE(
      torch::equal(t.node_layout[7], torch::tensor({1.0f, 0.0f, -1.0f, -1.0f, -1.0f, -1.0f})));
  // Shape dim 0 of node 7 is 281 = 2 * 128 + 25: columns 140 (remainder) and 146 (quotient).
  EXPECT_FLOAT_EQ(t.node_features[7][140].item<float>(), std::log1p(25.0f));
  EXPECT_FLOAT_EQ(t.node_features[7][146].item<float>(), std::log1p(2.0f));
  const std::vector<float> walks = data::random_walk_diagonals(graph, 3);
  for (int64_t v = 0; v < 64; ++v)
    for (int64_t k = 0; k < 3; ++k)
      EXPECT_EQ(t.node_features[v][152 + k].item<float>(), walks[v * 3 + k]);
  // The virtual node consumes every sink of the graph.
  int64_t sinks = 0;
  for (int64_t v = 0; v < 64; ++v) sinks += graph.users.degree(v) == 0;
  EXPECT_EQ(t.operand_offsets[65].item<int64_t>() - t.operand_offsets[64].item<int64_t>(), sinks);
}

TEST(InputFeatures, OptionsNeedTheTpuGraphsColumns) {
  const data::Graph narrow = testing::random_graph(10, 12, 0, 5, 10, 3, 1);
  GraphFeatureOptions f;
  f.shape_mod128 = true;
  EXPECT_THROW(make_graph_tensors(narrow, f), Error);
  f.shape_mod128 = false;
  f.random_walk_steps = 2;
  f.virtual_node = true;
  EXPECT_EQ(make_graph_tensors(narrow, f).node_features.size(1), 7);
  data::Graph bad = tpugraphs_like_graph();
  bad.node_features[3 * 140 + 135] = 2.5f;
  GraphFeatureOptions padding;
  padding.minus_one_padding = true;
  EXPECT_THROW(make_graph_tensors(bad, padding), Error);
}

TEST(InputFeatures, DeltaForwardMatchesDenseWithEveryOption) {
  const data::Graph graph = tpugraphs_like_graph();
  const GraphFeatureOptions f = all_on();
  const GraphTensors t = make_graph_tensors(graph, f);
  torch::manual_seed(0);
  Ranker model(options_for(f));
  Slate slate;
  slate.graph = &t;
  slate.config_features =
      torch::randint(-1, 6, {4, t.configurable_nodes.size(0), 3}).to(torch::kFloat);
  const torch::Tensor sparse = model->forward(slate), dense = model->forward_dense(slate);
  testing::expect_same_scores_and_gradients(model, sparse, dense, torch::randn({4}));
}

TEST(InputFeatures, NodeLayoutChangesTheScore) {
  data::Graph graph = tpugraphs_like_graph();
  GraphFeatureOptions f;
  f.minus_one_padding = true;
  torch::manual_seed(1);
  Ranker model(options_for(f));
  const GraphTensors t = make_graph_tensors(graph, f);
  Slate slate;
  slate.graph = &t;
  slate.config_features = torch::zeros({1, t.configurable_nodes.size(0), 3});
  const float before = model->forward(slate).item<float>();
  // Node 4 has rank 4; another layout of the same shape is another input.
  float* row = graph.node_features.data() + 4 * 140 + data::kMinorToMajorColumn;
  std::swap(row[0], row[1]);
  const GraphTensors changed = make_graph_tensors(graph, f);
  slate.graph = &changed;
  EXPECT_NE(model->forward(slate).item<float>(), before);
}

TEST(InputFeatures, ParameterCountGrowsByTheExtraInputs) {
  const ModelOptions base = options_for({});
  const ModelOptions extended = options_for(all_on());
  // + 15 node-feature columns into node_linear, + one opcode row, + 6 x 7 one-hot inputs in each
  // of the first layer's three blocks.
  EXPECT_EQ(Ranker(extended)->parameter_count() - Ranker(base)->parameter_count(),
            15 * 3 + 4 + 3 * 42 * 8);
}

TEST(InputFeatures, TensorsAndModelMustAgree) {
  const data::Graph graph = tpugraphs_like_graph();
  const GraphTensors plain = make_graph_tensors(graph);
  for (const GraphFeatureOptions& f : {all_on(), GraphFeatureOptions{true, false, 0, false, 0}}) {
    Ranker model(options_for(f));
    Slate slate;
    slate.graph = &plain;
    slate.config_features = torch::zeros({2, plain.configurable_nodes.size(0), 3});
    EXPECT_THROW(model->forward(slate), Error);
  }
}

TEST(InputFeatures, OptionsRoundTripThroughJson) {
  const ModelOptions o = options_for(all_on());
  const nlohmann::json j = o;
  EXPECT_EQ(j.at("minus_one_padding"), true);
  EXPECT_EQ(j.at("random_walk_steps"), 3);
  const ModelOptions back = j.get<ModelOptions>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_THROW(nlohmann::json({{"random_walk_steps", "many"}}).get<ModelOptions>(), Error);
}

}  // namespace
}  // namespace graphcost::model
