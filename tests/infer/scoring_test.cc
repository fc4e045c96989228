// The inference layer's one-graph entry point scores a graph exactly as the graph's entry in a
// collection is scored, for every strategy, ensembles and baselines.
#include "infer/scoring.h"

#include <gtest/gtest.h>

#include "../model/options_testing.h"
#include "../model/random_graph.h"
#include "core/random.h"
#include "infer/stack.h"
#include "model/scoring/predict.h"
#include "model/scoring/tta.h"

namespace graphcost::infer {
namespace {

class ScoreGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<data::GraphRecord> records;
    for (int g = 0; g < 3; ++g) {
      data::GraphRecord r;
      r.graph = model::testing::random_graph(30 + 5 * g, 50, 2, 5, 10, 0, 11 + g);
      r.graph.name = "g" + std::to_string(g);
      r.configs.kind = data::ConfigKind::Tile;
      r.configs.count = 12;
      r.configs.width = 3;
      for (int64_t i = 0; i < r.configs.count * r.configs.width; ++i)
        r.configs.tile.push_back(float((i * (g + 3)) % 7) - 2);
      for (int64_t i = 0; i < r.configs.count; ++i) r.configs.runtimes.push_back(1.0 + (i * 5 % 12));
      records.push_back(std::move(r));
    }
    collection = std::make_unique<data::MemoryCollection>(data::CollectionId::parse("tile:xla"),
                                                          "valid", std::move(records));
  }
  static model::Ranker make_model(bool attention, double dropout, uint64_t seed) {
    torch::manual_seed(seed);
    model::ModelOptions o = model::testing::small_model_options(data::ConfigKind::Tile);
    o.attention = attention;
    o.dropout = dropout;
    return model::Ranker(o);
  }
  // score_graph on each graph alone against score_collection over all of them.
  void expect_same(const Scorer& scorer) {
    std::vector<std::vector<double>> spreads;
    const auto all = score_collection(scorer, *collection, 0, &spreads);
    ASSERT_EQ(all.size(), 3u);
    for (int64_t g = 0; g < 3; ++g) {
      const GraphScoring one =
          score_graph(scorer, collection->graph(g), collection->configs(g), {}, g);
      EXPECT_EQ(one.scores, all[g].predicted) << "graph " << g;
      if (scorer.mc_samples > 0) {
        EXPECT_EQ(one.spread, spreads[g]) << "graph " << g;
      } else {
        EXPECT_TRUE(one.spread.empty());
      }
    }
  }
  std::unique_ptr<data::MemoryCollection> collection;
};

TEST_F(ScoreGraphTest, PlainAnchoredAndTtaScoresMatchTheCollections) {
  infer::TrainedModel plain, attention;
  plain.ranker = make_model(false, 0, 1);
  attention.ranker = make_model(true, 0, 2);
  attention.slate_size = 5;  // anchored by default: 4 anchors
  Scorer scorer;
  scorer.seed = 7;
  scorer.slate_size = 4;
  scorer.runs = {&plain, &attention};
  expect_same(scorer);
  scorer.anchors = 0;
  scorer.tta = 2;
  expect_same(scorer);
}

TEST_F(ScoreGraphTest, DefaultAnchorsAreTheTrainingSlateLessOneForAttentionScoreHeads) {
  const model::ModelOptions plain = make_model(false, 0, 1)->options();
  model::ModelOptions attention = make_model(true, 0, 1)->options();
  EXPECT_EQ(default_anchors(attention, 16, false), 15);
  EXPECT_EQ(default_anchors(attention, 16, true), 0);  // trained by segments
  EXPECT_EQ(default_anchors(attention, 0, false), 0);  // slate size unknown
  EXPECT_EQ(default_anchors(plain, 16, false), 0);
  attention.head = "pairwise";
  EXPECT_EQ(default_anchors(attention, 16, false), 0);
}

TEST_F(ScoreGraphTest, AnchoredRunScoresAsTheModelsAnchoredPrimitive) {
  infer::TrainedModel attention;
  attention.ranker = make_model(true, 0, 2);
  attention.slate_size = 5;
  Scorer scorer;
  scorer.seed = 7;
  scorer.slate_size = 4;
  scorer.runs = {&attention};
  const GraphScoring one = score_graph(scorer, collection->graph(1), collection->configs(1), {}, 1);
  model::RankerModeGuard eval_mode(attention.ranker, false);
  torch::NoGradGuard no_grad;
  const auto expected = model::score_configs_anchored(
      attention.ranker, model::make_graph_tensors(collection->graph(1)), collection->configs(1),
      {}, 4, 4, splitmix64_mix(7) + 1);
  EXPECT_EQ(one.scores, expected);
}

TEST_F(ScoreGraphTest, McDropoutGivesSpreadsAndTheSameScoresAsTheCollection) {
  infer::TrainedModel first;
  first.ranker = make_model(false, 0.3, 3);
  Scorer scorer;
  scorer.seed = 5;
  scorer.mc_samples = 3;
  scorer.runs = {&first};
  // MC dropout seeds its generator per call, so a graph alone draws what it draws in a collection.
  expect_same(scorer);
  const GraphScoring one = score_graph(scorer, collection->graph(0), collection->configs(0), {}, 0);
  double spread = 0;
  for (double s : one.spread) spread += s;
  EXPECT_GT(spread, 0);
}

TEST_F(ScoreGraphTest, EnsemblesAndBaselinesMatchTheCollection) {
  infer::TrainedModel a, b;
  a.ranker = make_model(false, 0, 4);
  b.ranker = make_model(false, 0, 5);
  Scorer scorer;
  scorer.runs = {&a, &b};
  scorer.ensemble = "rank";
  expect_same(scorer);
  Scorer baseline;
  baseline.baseline = "default";
  baseline.seed = 9;
  // A baseline's draws run across the collection's graphs; alone, a graph draws the first ones.
  const auto all = score_collection(baseline, *collection, 0);
  EXPECT_EQ(score_graph(baseline, collection->graph(0), collection->configs(0), {}).scores,
            all[0].predicted);
}

TEST_F(ScoreGraphTest, ListedConfigurationsOnly) {
  infer::TrainedModel a;
  a.ranker = make_model(false, 0, 4);
  Scorer scorer;
  scorer.runs = {&a};
  const GraphScoring all = score_graph(scorer, collection->graph(2), collection->configs(2), {});
  const GraphScoring some =
      score_graph(scorer, collection->graph(2), collection->configs(2), {1, 4, 7});
  ASSERT_EQ(some.scores.size(), 3u);
  EXPECT_NEAR(some.scores[0], all.scores[1], 1e-5);
  EXPECT_NEAR(some.scores[1], all.scores[4], 1e-5);
  EXPECT_NEAR(some.scores[2], all.scores[7], 1e-5);
}

TEST_F(ScoreGraphTest, StackScoresItsMembersThroughTheMetaLearner) {
  infer::TrainedModel plain, attention;
  plain.ranker = make_model(false, 0, 4);
  attention.ranker = make_model(true, 0, 6);
  attention.slate_size = 5;  // anchored, as alone
  Scorer alone_plain, alone_attention;
  alone_plain.runs = {&plain};
  alone_attention.runs = {&attention};
  // The meta-learner fitted on each member's scores as it scores alone.
  std::vector<stack::StackGraph> graphs;
  for (int64_t g = 0; g < 3; ++g) {
    const data::ConfigView configs = collection->configs(g);
    stack::StackGraph rows;
    rows.name = collection->graph(g).name;
    rows.features = stack::stack_features(
        {score_graph(alone_plain, collection->graph(g), configs, {}, g).scores,
         score_graph(alone_attention, collection->graph(g), configs, {}, g).scores});
    rows.runtimes.assign(configs.runtimes, configs.runtimes + configs.count);
    graphs.push_back(std::move(rows));
  }
  stack::MetaOptions meta;
  meta.folds = 3;
  auto model = std::make_shared<StackModel>();
  model->members = {plain, attention};
  model->meta = stack::MetaLearner::fit(graphs, 2, meta);
  infer::TrainedModel stacked;
  stacked.stack = model;
  Scorer scorer;
  scorer.runs = {&stacked};
  expect_same(scorer);
  for (int64_t g = 0; g < 3; ++g) {
    EXPECT_EQ(score_graph(scorer, collection->graph(g), collection->configs(g), {}, g).scores,
              model->meta.score(graphs[g].features))
        << "graph " << g;
  }
}

}  // namespace
}  // namespace graphcost::infer
