#include "tune/model_guided_search.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "core/error.h"
#include "model/io/model_file.h"
#include "model/scoring/predict.h"
#include "test_space.h"

namespace graphcost::tune {
namespace {

model::ModelOptions toy_model_options(double dropout) {
  model::ModelOptions o;
  o.kind = data::ConfigKind::Tile;
  o.node_feature_width = 2;
  o.config_width = 2;
  o.hidden = {16, 16};
  o.dropout = dropout;
  return o;
}

TEST(TuneMcScores, ZeroSpreadWithoutDropoutAndSomeWithIt) {
  const data::GraphRecord r = testing::small_tune_record();
  const model::GraphTensors g = model::make_graph_tensors(r.graph);
  const std::vector<int64_t> configs = {0, 3, 5, 11};
  torch::manual_seed(1);
  model::Ranker plain(toy_model_options(0.0));
  plain->train();
  const auto [mean, std] = tune_mc_scores(plain, g, r.configs.view(), configs, 5, 3);
  const std::vector<double> reference = model::score_configs(plain, g, r.configs.view(), configs);
  ASSERT_EQ(mean.size(), 4u);
  for (size_t i = 0; i < mean.size(); ++i) {
    EXPECT_NEAR(mean[i], reference[i], 1e-5);
    EXPECT_NEAR(std[i], 0.0, 1e-5);
  }
  EXPECT_TRUE(plain->is_training());  // the mode is restored
  model::Ranker noisy(toy_model_options(0.5));
  noisy->eval();
  const auto [noisy_mean, noisy_std] = tune_mc_scores(noisy, g, r.configs.view(), configs, 20);
  for (double s : noisy_std) EXPECT_GT(s, 0.0);
  EXPECT_FALSE(noisy->is_training());
  EXPECT_EQ(lower_confidence_bound({1.0, 2.0}, {0.5, 0.25}, 2.0), (std::vector<double>{0.0, 1.5}));
}

CampaignResult model_campaign(const data::GraphRecord& r, const SearchSpace& s, uint64_t seed) {
  ModelGuidedOptions o;
  o.initial = 3;
  o.hidden = {8};
  o.train_steps = 5;
  o.mc_samples = 3;
  ModelGuidedStrategy strategy(o, r.graph, r.configs.view());
  RecordedMeasurer m(s);
  return run_campaign(s, strategy, m, 9, 2, seed);
}

TEST(ModelGuided, SeededSearchIsReproducibleAndNeverRepeats) {
  const data::GraphRecord r = testing::small_tune_record();
  const SearchSpace s = make_search_space("toy", r.configs.view(), testing::small_tune_layout());
  const CampaignResult a = model_campaign(r, s, 7), b = model_campaign(r, s, 7);
  ASSERT_EQ(a.measurements.size(), 9u);
  std::set<int64_t> seen;
  for (size_t k = 0; k < a.measurements.size(); ++k) {
    EXPECT_EQ(a.measurements[k].config, b.measurements[k].config);
    seen.insert(a.measurements[k].config);
  }
  EXPECT_EQ(seen.size(), 9u);
}

TEST(ModelGuided, PretrainedModelsMustMatchTheRecords) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("graphcost_tune_pretrained_" + std::to_string(::getpid()) + ".pt"))
                               .string();
  torch::manual_seed(2);
  model::Ranker trained(toy_model_options(0.0));
  model::save_model(trained, path);
  model::Ranker loaded = load_pretrained_ranker(path, 2, 2, 0.3);
  EXPECT_DOUBLE_EQ(loaded->options().dropout, 0.3);
  const auto a = trained->named_parameters(), b = loaded->named_parameters();
  for (const auto& item : a) EXPECT_TRUE(torch::equal(item.value(), b[item.key()])) << item.key();
  EXPECT_THROW(load_pretrained_ranker(path, 3, 2, 0.3), Error);
  EXPECT_THROW(load_pretrained_ranker(path, 2, 5, 0.3), Error);
  EXPECT_THROW(load_pretrained_ranker(path + ".missing", 2, 2, 0.3), Error);
  std::filesystem::remove(path);
  const data::GraphRecord r = testing::small_tune_record();
  ModelGuidedOptions o;
  o.dropout = 0.0;
  EXPECT_THROW(ModelGuidedStrategy(o, r.graph, r.configs.view()), Error);
}

// A pretrained model trained with extra node inputs reads the graph with them: the strategy's
// graph tensors carry the random-walk columns and the virtual node, and its search runs (without
// them the model's first layer gets 2 columns where it expects 5 and the campaign throws).
TEST(ModelGuided, PretrainedModelsReadTheGraphWithTheirInputOptions) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("graphcost_tune_features_" + std::to_string(::getpid()) + ".pt"))
                               .string();
  torch::manual_seed(3);
  model::ModelOptions options = toy_model_options(0.0);
  options.random_walk_steps = 3;
  options.virtual_node = true;
  model::Ranker untrained(options);
  model::save_model(untrained, path);
  const data::GraphRecord r = testing::small_tune_record();
  const SearchSpace s = make_search_space("toy", r.configs.view(), testing::small_tune_layout());
  ModelGuidedOptions o;
  o.initial = 3;
  o.hidden = {8};
  o.train_steps = 2;
  o.mc_samples = 2;
  o.pretrained = path;
  ModelGuidedStrategy strategy(o, r.graph, r.configs.view());
  RecordedMeasurer m(s);
  const CampaignResult result = run_campaign(s, strategy, m, 6, 2, 5);
  std::filesystem::remove(path);
  EXPECT_EQ(result.measurements.size(), 6u);
}

}  // namespace
}  // namespace graphcost::tune
