#include "model/forward/ranker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "../gradient_testing.h"
#include "../options_testing.h"
#include "../random_graph.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "model/io/model_file.h"

namespace graphcost::model {
namespace {

ModelOptions small_options(data::ConfigKind kind) { return testing::small_model_options(kind); }

// 60 connected nodes (mean 1.5 operands), 4 isolated, every 9th node configurable.
class RankerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(0);
    graph = testing::random_graph(64, 90, 4, 5, 10, 9, 3);
    tensors = make_graph_tensors(graph);
  }
  Slate layout_slate(int64_t s, uint64_t seed) {
    return testing::random_layout_slate(tensors, s, seed);
  }
  data::Graph graph;
  GraphTensors tensors;
};

TEST_F(RankerTest, ScoresOnePerConfiguration) {
  Ranker model(small_options(data::ConfigKind::Layout));
  EXPECT_EQ(model->forward(layout_slate(5, 1)).sizes(), (std::vector<int64_t>{5}));
}

TEST_F(RankerTest, SharedComputationMatchesDenseForwardAndGradients) {
  // The graph leaves some nodes out of the configurations' reach, so both paths are exercised.
  const ConfigReachPlan plan = plan_config_reach(tensors, 3, false);
  ASSERT_LT(plan.reach[0], plan.reach[1]);
  ASSERT_LT(plan.reach[3], tensors.num_nodes);
  ModelOptions with_residual = small_options(data::ConfigKind::Layout);
  with_residual.hidden = {4 + 3 + 22, 8, 8};  // first layer as wide as its input
  for (const ModelOptions& options : {small_options(data::ConfigKind::Layout), with_residual}) {
    Ranker model(options);
    Slate slate = layout_slate(4, 2);
    torch::Tensor sparse = model->forward(slate);
    torch::Tensor dense = model->forward_dense(slate);
    testing::expect_same_scores_and_gradients(model, sparse, dense, torch::randn({4}));
  }
}

// A long chain with short skips, like real XLA graphs: the configuration's reach grows slowly, so
// every layer after the first is computed by its change from the shared state (delta_layer).
TEST(RankerDelta, ChangeFromTheSharedStateMatchesDenseForwardAndGradients) {
  torch::manual_seed(0);
  const data::Graph graph = testing::chain_graph(90, 5, 30);
  const GraphTensors tensors = make_graph_tensors(graph);
  ModelOptions options = testing::small_model_options(data::ConfigKind::Layout);
  options.hidden = {8, 8, 8, 8};  // residuals on layers 2-4
  const ConfigReachPlan plan = plan_config_reach(tensors, 4, false);
  for (size_t l = 2; l <= 4; ++l) ASSERT_LE(plan.reach[l - 1] * 10, plan.reach[l] * 9) << l;
  ASSERT_LT(plan.reach[4], tensors.num_nodes);
  const Slate slate = testing::random_layout_slate(tensors, 5, 7);
  // The delta path is exact only if it differentiates each activation correctly.
  for (const char* activation : {"leaky_relu", "relu", "tanh", "gelu"}) {
    SCOPED_TRACE(activation);
    options.activation = activation;
    Ranker model(options);
    for (bool with_constant : {true, false}) {
      torch::Tensor sparse = model->forward(slate, with_constant);
      torch::Tensor dense = model->forward_dense(slate);
      if (!with_constant) {  // one constant per graph apart
        sparse = sparse - sparse[0];
        dense = dense - dense[0];
      }
      testing::expect_same_scores_and_gradients(
          model, sparse, dense, torch::tensor({1.0f, -2.0f, 0.5f, 3.0f, -1.0f}));
    }
  }
}

// Layout values are one-hot encoded over -1..5; anything else is a data error, not a crash.
TEST_F(RankerTest, LayoutValueOutsideTheEncodingIsAnError) {
  Ranker model(small_options(data::ConfigKind::Layout));
  for (float bad : {6.0f, -2.0f}) {
    Slate slate = layout_slate(3, 5);
    slate.config_features[1][0][2] = bad;
    EXPECT_THROW(model->forward(slate), Error) << bad;
  }
  // The encoding itself: a slate differing in one value scores differently only there.
  Slate slate = layout_slate(2, 6);
  slate.config_features[1] = slate.config_features[0];
  const torch::Tensor same = model->forward(slate).detach();
  const float tolerance = 1e-5f * std::abs(same[0].item<float>()) + 1e-6f;
  EXPECT_NEAR(same[0].item<float>(), same[1].item<float>(), tolerance);
  slate.config_features[1][0][0] = slate.config_features[0][0][0].item<float>() == 5 ? 4 : 5;
  const torch::Tensor changed = model->forward(slate).detach();
  EXPECT_NEAR(changed[0].item<float>(), same[0].item<float>(), tolerance);
  EXPECT_GT(std::abs(changed[1].item<float>() - same[1].item<float>()), 100 * tolerance);
}

TEST_F(RankerTest, InferenceInChunksMatchesOneSlate) {
  Ranker model(small_options(data::ConfigKind::Layout));
  Slate slate = layout_slate(40, 8);
  torch::Tensor with_grad = model->forward(slate);
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::allclose(model->forward(slate), with_grad, 1e-5, 1e-6));
}

TEST_F(RankerTest, SharedCacheKeepsTheScores) {
  ModelOptions options = small_options(data::ConfigKind::Layout);
  options.dropout = 0.2;
  Ranker model(options);
  model->eval();
  const Slate a = layout_slate(7, 1), b = layout_slate(40, 2);
  // References without a cache: one slate each, with gradients (so neither chunked nor cached).
  const torch::Tensor ref_a = model->forward(a).detach(), ref_b = model->forward(b).detach();
  const torch::Tensor ref_a_partial = model->forward(a, false).detach();
  torch::NoGradGuard no_grad;
  RankerImpl::SharedCache cache;
  EXPECT_TRUE(torch::allclose(model->forward_cached(a, true, &cache), ref_a, 1e-5, 1e-6));
  ASSERT_TRUE(cache.plan);
  EXPECT_EQ(cache.graph, &tensors);
  // The node states, the first shared input, each of the 3 layers' shared pre-activation and
  // output (the last layer's output too: the constant needs it).
  EXPECT_TRUE(cache.node_states.defined());
  EXPECT_TRUE(cache.first_shared_input.defined());
  ASSERT_EQ(cache.layers.size(), 3u);
  for (const RankerImpl::SharedCache::Layer& layer : cache.layers) {
    EXPECT_TRUE(layer.shared_pre_activation.defined());
    EXPECT_TRUE(layer.shared_output.defined());
  }
  const torch::Tensor kept = cache.layers[0].shared_pre_activation;
  // A second slate (chunked) reuses the kept tensors and gives its own scores.
  EXPECT_TRUE(torch::allclose(model->forward_cached(b, true, &cache), ref_b, 1e-5, 1e-6));
  EXPECT_TRUE(cache.layers[0].shared_pre_activation.is_same(kept));
  // Another with_constant starts the cache afresh.
  EXPECT_TRUE(torch::allclose(model->forward_cached(a, false, &cache), ref_a_partial, 1e-5, 1e-6));
  EXPECT_FALSE(cache.final_shared);
  EXPECT_FALSE(cache.layers[0].shared_pre_activation.is_same(kept));
  // With dropout drawing (training mode) nothing is cached.
  model->train();
  RankerImpl::SharedCache unused;
  model->forward_cached(a, true, &unused);
  EXPECT_FALSE(unused.plan);
  EXPECT_FALSE(unused.node_states.defined());
  EXPECT_TRUE(unused.layers.empty());
}

TEST_F(RankerTest, SharedCacheKeepsTheEmbeddingsBeforeAttention) {
  ModelOptions options = small_options(data::ConfigKind::Layout);
  options.attention = true;
  Ranker model(options);
  model->eval();
  const Slate a = layout_slate(5, 3), b = layout_slate(37, 4);
  // References: one slate each with gradients recorded, so neither chunked nor cached.
  const torch::Tensor ref_a = model->embed_before_attention(a).detach();
  const torch::Tensor ref_b = model->embed_before_attention(b).detach();
  const torch::Tensor ref_scores = model->forward(b).detach();
  torch::NoGradGuard no_grad;
  RankerImpl::SharedCache cache;
  EXPECT_TRUE(torch::allclose(model->embed_before_attention(a, &cache), ref_a, 1e-5, 1e-6));
  ASSERT_TRUE(cache.plan);
  ASSERT_GE(cache.layers.size(), 1u);
  const torch::Tensor kept = cache.layers[0].shared_pre_activation;
  EXPECT_TRUE(torch::allclose(model->embed_before_attention(b, &cache), ref_b, 1e-5, 1e-6));
  EXPECT_TRUE(cache.layers[0].shared_pre_activation.is_same(kept));
  // The attention model's scores through forward_cached use the same cache.
  EXPECT_TRUE(torch::allclose(model->forward_cached(b, true, &cache), ref_scores, 1e-5, 1e-6));
  EXPECT_TRUE(cache.layers[0].shared_pre_activation.is_same(kept));
}

TEST_F(RankerTest, PermutingTheSlatePermutesTheScores) {
  Ranker model(small_options(data::ConfigKind::Layout));
  Slate slate = layout_slate(6, 3);
  torch::Tensor scores = model->forward(slate);
  torch::Tensor permutation = torch::tensor({3, 0, 5, 1, 4, 2}, torch::kLong);
  Slate permuted = slate;
  permuted.config_features = slate.config_features.index_select(0, permutation);
  EXPECT_TRUE(
      torch::allclose(model->forward(permuted), scores.index_select(0, permutation), 1e-5, 1e-6));
}

TEST_F(RankerTest, OneConfigurableNodeChangesTheScore) {
  Ranker model(small_options(data::ConfigKind::Layout));
  Slate slate = layout_slate(3, 4);
  slate.config_features[1] = slate.config_features[0];
  slate.config_features[2] = slate.config_features[0];
  slate.config_features[2][3][1] =
      slate.config_features[0][3][1].item<float>() == 2.0f ? 3.0f : 2.0f;
  torch::Tensor scores = model->forward(slate);
  EXPECT_EQ(scores[0].item<float>(), scores[1].item<float>());
  EXPECT_NE(scores[0].item<float>(), scores[2].item<float>());
}

TEST_F(RankerTest, DefaultLayoutIsDistinctFromZero) {
  Ranker model(small_options(data::ConfigKind::Layout));
  Slate slate = layout_slate(2, 5);
  slate.config_features[0][0][0] = -1.0f;
  slate.config_features[1] = slate.config_features[0];
  slate.config_features[1][0][0] = 0.0f;
  torch::Tensor encoded = model->encode_configs(slate);
  ASSERT_EQ(encoded.sizes(),
            (std::vector<int64_t>{2, tensors.configurable_nodes.size(0), 3 * 7 + 1}));
  EXPECT_FALSE(torch::equal(encoded[0][0], encoded[1][0]));
  EXPECT_EQ(encoded[0][0][0].item<float>(), 1.0f);   // -1 is the first category
  EXPECT_EQ(encoded[1][0][1].item<float>(), 1.0f);   // 0 is the second
  EXPECT_EQ(encoded[0][0][21].item<float>(), 1.0f);  // "is configured"
  torch::Tensor scores = model->forward(slate);
  EXPECT_NE(scores[0].item<float>(), scores[1].item<float>());
  slate.config_features[1][0][0] = 6.0f;
  EXPECT_THROW(model->forward(slate), Error);
}

TEST_F(RankerTest, TileConfigurationReachesEveryNode) {
  Ranker model(small_options(data::ConfigKind::Tile));
  Slate slate;
  slate.graph = &tensors;
  slate.config_features =
      torch::tensor({{1.0f, 2.0f, 3.0f}, {1.0f, 2.0f, 300.0f}, {1.0f, 2.0f, 3.0f}});
  torch::Tensor scores = model->forward(slate);
  ASSERT_EQ(scores.sizes(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(torch::allclose(scores, model->forward_dense(slate), 1e-4, 1e-5));
  EXPECT_EQ(scores[0].item<float>(), scores[2].item<float>());
  EXPECT_NE(scores[0].item<float>(), scores[1].item<float>());
  // Broadcast: an isolated node's state still depends on the tile configuration, so a graph of
  // isolated nodes ranks tile configurations too.
  data::Graph lonely = testing::random_graph(3, 0, 3, 5, 10, 0, 1);
  GraphTensors lonely_tensors = make_graph_tensors(lonely);
  slate.graph = &lonely_tensors;
  torch::Tensor lonely_scores = model->forward(slate);
  EXPECT_NE(lonely_scores[0].item<float>(), lonely_scores[1].item<float>());
}

// config_one_hot: each listed value of a tile column gets a column of its own after the signed
// logs; a value not in the list (7 in column 0) has zeros there; a column without values (2)
// only its signed log.
TEST_F(RankerTest, TileValuesGetOneHotColumnsAfterTheirSignedLogs) {
  ModelOptions o = small_options(data::ConfigKind::Tile);
  o.config_one_hot = 3;
  o.config_values = {{1.0, 4.0, 16.0}, {0.0, 1.0}, {}};
  ASSERT_EQ(tile_encoded_width(o), 3 + 3 + 2);
  ASSERT_EQ(config_input_width(o), 8);
  Ranker model(o);
  Slate slate;
  slate.graph = &tensors;
  slate.config_features = torch::tensor({{4.0f, 1.0f, 300.0f}, {7.0f, 0.0f, 3.0f}});
  const torch::Tensor encoded = model->encode_configs(slate);
  const float l4 = std::log1p(4.0f), l300 = std::log1p(300.0f), l7 = std::log1p(7.0f),
              l3 = std::log1p(3.0f), l1 = std::log1p(1.0f);
  const torch::Tensor expected = torch::tensor(
      {{l4, l1, l300, 0.0f, 1.0f, 0.0f, 0.0f, 1.0f}, {l7, 0.0f, l3, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f}});
  EXPECT_TRUE(torch::allclose(encoded, expected, 0, 1e-6)) << encoded;
  const torch::Tensor scores = model->forward(slate);
  EXPECT_TRUE(torch::allclose(scores, model->forward_dense(slate), 1e-4, 1e-5));
  // The values travel with the model.
  const std::string path = ::testing::TempDir() + "one_hot_" + std::to_string(getpid()) + ".pt";
  save_model(model, path);
  Ranker loaded = load_model(path);
  EXPECT_EQ(loaded->options().config_values, o.config_values);
  EXPECT_TRUE(torch::equal(scores, loaded->forward(slate)));
  std::remove(path.c_str());
}

TEST(ModelOptions, ConfigValuesMustMatchTheColumns) {
  ModelOptions o = testing::small_model_options(data::ConfigKind::Tile);
  o.config_values = {{1.0}, {2.0}};  // config_width is 3
  try {
    check_model_options(o);
    FAIL() << "two columns of values accepted for three columns";
  } catch (const Error& e) {
    EXPECT_EQ(e.key(), "config_values");
  }
  o.config_values = {{2.0, 1.0}, {}, {}};
  EXPECT_THROW(check_model_options(o), Error);
  o.config_values = {{1.0, 2.0}, {}, {}};
  EXPECT_NO_THROW(check_model_options(o));
  o.config_one_hot = -1;
  EXPECT_THROW(check_model_options(o), Error);
  nlohmann::json not_numbers = {{"config_values", {{"a"}}}};
  EXPECT_THROW((void)not_numbers.get<ModelOptions>(), Error);
}

TEST_F(RankerTest, EmptyGraphAndEmptySlate) {
  Ranker model(small_options(data::ConfigKind::Tile));
  data::Graph empty;
  empty.feature_width = 5;
  empty.build_adjacency();
  GraphTensors t = make_graph_tensors(empty);
  Slate slate;
  slate.graph = &t;
  slate.config_features = torch::ones({2, 3});
  torch::Tensor scores = model->forward(slate);
  EXPECT_EQ(scores.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(scores.abs().sum().item<float>(), 0.0f);
  slate.config_features = torch::ones({0, 3});
  EXPECT_EQ(model->forward(slate).size(0), 0);
}

TEST(ModelOptions, JsonRoundTripAndUnknownKey) {
  ModelOptions o = small_options(data::ConfigKind::Tile);
  o.dropout = 0.25;
  o.activation = "gelu";
  o.config_embedding = 7;
  nlohmann::json j = o;
  ModelOptions back = j.get<ModelOptions>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(back.kind, data::ConfigKind::Tile);
  EXPECT_EQ(back.hidden, o.hidden);
  EXPECT_EQ(back.dropout, 0.25);
  j["hiden"] = 3;
  try {
    (void)j.get<ModelOptions>();
    FAIL() << "unknown key accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.key(), "hiden");
  }
  nlohmann::json wrong_type = {{"dropout", "high"}};
  EXPECT_THROW((void)wrong_type.get<ModelOptions>(), Error);
  nlohmann::json wrong_kind = {{"kind", "graph"}};
  EXPECT_THROW((void)wrong_kind.get<ModelOptions>(), Error);
}

TEST(ModelOptions, DefaultLayoutXlaParameterCount) {
  Ranker model(ModelOptions{});
  EXPECT_EQ(model->parameter_count(), 268109);
  ModelOptions bad;
  bad.activation = "swish";
  EXPECT_THROW(Ranker{bad}, Error);
}

TEST_F(RankerTest, SaveLoadRoundTripGivesIdenticalScores) {
  ModelOptions o = small_options(data::ConfigKind::Layout);
  o.config_embedding = 5;
  Ranker model(o);
  const std::string path = ::testing::TempDir() + "ranker_" + std::to_string(getpid()) + ".pt";
  save_model(model, path);
  Ranker loaded = load_model(path);
  EXPECT_EQ(nlohmann::json(loaded->options()), nlohmann::json(o));
  Slate slate = layout_slate(4, 6);
  EXPECT_TRUE(torch::equal(model->forward(slate), loaded->forward(slate)));
  // One byte of the first tensor's data flipped (found from its zip local header: 30 bytes, the
  // name, the extra field, then the data): LibTorch reads the archive without a word (its CRCs
  // go unchecked), load_model names the damaged entry.
  std::string bytes = read_file(path);
  const size_t name = bytes.find("/data/0");
  ASSERT_NE(name, std::string::npos);
  const size_t header = bytes.rfind(std::string("PK\x03\x04", 4), name);
  ASSERT_NE(header, std::string::npos);
  const auto u16 = [&](size_t at) {
    return static_cast<size_t>(static_cast<uint8_t>(bytes[at])) |
           static_cast<size_t>(static_cast<uint8_t>(bytes[at + 1])) << 8;
  };
  bytes[header + 30 + u16(header + 26) + u16(header + 28)] ^= 0x5a;
  write_file_atomically(path, bytes);
  torch::serialize::InputArchive unchecked;
  EXPECT_NO_THROW(unchecked.load_from(path));
  try {
    load_model(path);
    ADD_FAILURE() << "a damaged model loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CRC error"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(path + ": archive/", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(load_model(path), Error);
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fputs("not an archive", f);
    std::fclose(f);
    EXPECT_THROW(load_model(path), Error);
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace graphcost::model
