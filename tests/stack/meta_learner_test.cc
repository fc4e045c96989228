// The meta-learners: features standardised per graph, the setting chosen out of fold, ridge's
// final weights against the closed form recomputed here, XGBoost ranking, and a saved
// meta-learner scoring as the fitted one.
#include "stack/meta_learner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "../eval/temp_dir.h"
#include "core/error.h"
#include "core/random.h"
#include "eval/ensemble.h"
#include "stack/ridge.h"

namespace graphcost::stack {
namespace {

TEST(SplitConfigurations, OneGraphDealtIntoPartsThatKeepEachRow) {
  // 7 configurations of 2 member columns: row i is (i, 10 i), runtime i + 1.
  StackGraph graph;
  graph.name = "alexnet";
  for (int i = 0; i < 7; ++i) {
    graph.features.insert(graph.features.end(), {double(i), 10.0 * i});
    graph.runtimes.push_back(i + 1);
  }
  const std::vector<StackGraph> parts = split_configurations(graph, 3, 2, 5);
  ASSERT_EQ(parts.size(), 3u);
  std::vector<int> seen;
  for (size_t k = 0; k < parts.size(); ++k) {
    EXPECT_EQ(parts[k].name, "alexnet#" + std::to_string(k));
    EXPECT_EQ(parts[k].runtimes.size(), k == 0 ? 3u : 2u);  // round-robin: 3, 2, 2
    ASSERT_EQ(parts[k].features.size(), 2 * parts[k].runtimes.size());
    for (size_t r = 0; r < parts[k].runtimes.size(); ++r) {
      const int i = static_cast<int>(parts[k].runtimes[r]) - 1;  // the row's own runtime
      EXPECT_EQ(parts[k].features[2 * r], i);
      EXPECT_EQ(parts[k].features[2 * r + 1], 10.0 * i);
      seen.push_back(i);
    }
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  // The same seed deals the same parts; a part of fewer than 2 configurations is refused.
  EXPECT_EQ(split_configurations(graph, 3, 2, 5)[1].runtimes, parts[1].runtimes);
  EXPECT_THROW(split_configurations(graph, 4, 2, 5), Error);
  // A stack fitted on the parts of one graph: ridge gives the member that ranks by runtime the
  // larger weight (member 0 is runtime - 1, member 1 its reverse order).
  StackGraph mixed = graph;
  for (int i = 0; i < 7; ++i) mixed.features[2 * i + 1] = -10.0 * i;
  std::vector<StackGraph> dealt;
  for (const StackGraph& part : split_configurations(mixed, 3, 2, 5)) {
    StackGraph rows = part;
    std::vector<std::vector<double>> columns(2);
    for (size_t r = 0; r < part.runtimes.size(); ++r)
      for (int m = 0; m < 2; ++m) columns[m].push_back(part.features[2 * r + m]);
    rows.features = stack_features(columns);
    dealt.push_back(rows);
  }
  MetaOptions options;
  options.folds = 3;
  const MetaLearner meta = MetaLearner::fit(dealt, 2, options);
  EXPECT_GT(meta.weights()[0], meta.weights()[1]);
}

TEST(StackFeatures, EachMemberStandardisedOverTheGraph) {
  // Member 0: 1, 2, 3 -> -1.2247, 0, 1.2247; member 1: 10, 10, 40 -> -0.7071, -0.7071, 1.4142.
  const std::vector<double> f = stack_features({{1, 2, 3}, {10, 10, 40}});
  ASSERT_EQ(f.size(), 6u);
  const double s = std::sqrt(1.5);
  EXPECT_NEAR(f[0], -1 / s * 1.5, 1e-12);  // (1 - 2) / sqrt(2/3)
  EXPECT_NEAR(f[1], -1 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(f[2], 0.0, 1e-12);
  EXPECT_NEAR(f[4], 1 / s * 1.5, 1e-12);
  EXPECT_NEAR(f[5], std::sqrt(2.0), 1e-12);
  EXPECT_THROW(stack_features({{1, 2}, {1, 2, 3}}), Error);
}

// Graphs of 12 configurations: member 0 is log runtime plus a little noise, member 1 is noise.
std::vector<StackGraph> synthetic_graphs(int count, uint64_t seed) {
  Random random(seed);
  std::vector<StackGraph> graphs;
  for (int g = 0; g < count; ++g) {
    StackGraph graph;
    graph.name = "g" + std::to_string(g);
    std::vector<double> good, noise;
    for (int i = 0; i < 12; ++i) {
      const double runtime = std::exp(2 * random.uniform());
      graph.runtimes.push_back(runtime);
      good.push_back(std::log(runtime) + 0.1 * random.uniform());
      noise.push_back(random.uniform());
    }
    graph.features = stack_features({good, noise});
    graphs.push_back(std::move(graph));
  }
  return graphs;
}

TEST(MetaLearner, RidgeChoosesOutOfFoldAndFitsTheClosedFormOnEveryGraph) {
  const std::vector<StackGraph> graphs = synthetic_graphs(6, 3);
  MetaOptions options;
  options.folds = 3;
  const MetaLearner meta = MetaLearner::fit(graphs, 2, options);
  ASSERT_EQ(meta.cross_fit().size(), 5u);  // the five lambdas
  const double lambda_per_row = meta.setting()["lambda_per_row"].get<double>();
  double best = -2;
  for (const CandidateResult& c : meta.cross_fit()) best = std::max(best, c.tau);
  for (const CandidateResult& c : meta.cross_fit())
    if (c.setting == meta.setting()) {
      EXPECT_EQ(c.tau, best);
    }
  EXPECT_GT(best, 0.8);
  // The final weights: ridge on every graph's rows against the standardised log runtimes.
  std::vector<double> x, y;
  for (const StackGraph& g : graphs) {
    x.insert(x.end(), g.features.begin(), g.features.end());
    std::vector<double> logs;
    for (double r : g.runtimes) logs.push_back(std::log(r));
    const std::vector<double> z = eval::standardise(logs);
    y.insert(y.end(), z.begin(), z.end());
  }
  const std::vector<double> expected = fit_ridge(x, 2, y, lambda_per_row * y.size());
  ASSERT_EQ(meta.weights().size(), 2u);
  EXPECT_DOUBLE_EQ(meta.weights()[0], expected[0]);
  EXPECT_DOUBLE_EQ(meta.weights()[1], expected[1]);
  EXPECT_GT(meta.weights()[0], 5 * std::abs(meta.weights()[1]));  // trusts the good member
  EXPECT_EQ(meta.score(graphs[0].features), linear_scores(graphs[0].features, expected));
}

TEST(MetaLearner, SavedAndLoadedScoresTheSame) {
  const std::vector<StackGraph> graphs = synthetic_graphs(5, 8);
  const std::string path = eval::fresh_temp_dir() + "/meta.xgb";
  for (const char* name : {"ridge", "xgboost"}) {
    MetaOptions options;
    options.meta = name;
    options.folds = 5;
    options.threads = 1;
    const MetaLearner meta = MetaLearner::fit(graphs, 2, options);
    EXPECT_EQ(meta.cross_fit().size(), std::string(name) == "ridge" ? 5u : 3u);
    meta.save_model(path);
    const nlohmann::json j = nlohmann::json::parse(meta.to_json().dump());
    const MetaLearner loaded = MetaLearner::load(j, path, "config.json", 1);
    EXPECT_EQ(loaded.meta(), name);
    for (const StackGraph& g : graphs) EXPECT_EQ(loaded.score(g.features), meta.score(g.features));
  }
}

TEST(MetaLearner, XgboostRanksByTheGoodMember) {
  const std::vector<StackGraph> graphs = synthetic_graphs(6, 5);
  MetaOptions options;
  options.meta = "xgboost";
  options.folds = 3;
  options.threads = 1;
  const MetaLearner meta = MetaLearner::fit(graphs, 2, options);
  for (const CandidateResult& c : meta.cross_fit()) EXPECT_GT(c.tau, 0.6) << c.setting;
}

TEST(MetaLearner, BadInputsAreErrors) {
  const std::vector<StackGraph> graphs = synthetic_graphs(3, 1);
  MetaOptions options;
  options.meta = "lasso";
  EXPECT_THROW(MetaLearner::fit(graphs, 2, options), Error);
  options.meta = "ridge";
  EXPECT_THROW(MetaLearner::fit({graphs[0]}, 2, options), Error);  // one graph: no folds
  std::vector<StackGraph> bad = graphs;
  bad[1].runtimes[0] = 0;
  EXPECT_THROW(MetaLearner::fit(bad, 2, options), Error);
  EXPECT_THROW(MetaLearner::load({{"meta", "ridge"}, {"members_width", 2}, {"weights", {1}}}, ".",
                                 "config.json", 1),
               Error);
  try {
    MetaLearner::load({{"meta", "ridge"}, {"members_width", 2}, {"weights", {1}}}, ".", "c.json", 1);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "c.json: stack.weights: expected 2 numbers (one per member)");
  }
}

}  // namespace
}  // namespace graphcost::stack
