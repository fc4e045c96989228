#include "xgb/ranker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "core/error.h"

namespace graphcost::xgb {
namespace {

// Tile graphs of one node whose runtime is (x0 - 3)^2 + 0.5 * x1 + graph offset over a 8 x 4
// grid: configuration (3, 0) is the fastest of every graph.
data::GraphRecord grid_graph(int g) {
  data::GraphRecord r;
  r.graph.name = "g" + std::to_string(g);
  r.graph.num_nodes = 1;
  r.graph.feature_width = 1;
  r.graph.opcodes = {0};
  r.graph.node_features = {static_cast<float>(g)};
  r.graph.build_adjacency();
  r.configs.kind = data::ConfigKind::Tile;
  r.configs.width = 2;
  for (int x0 = 0; x0 < 8; ++x0) {
    for (int x1 = 0; x1 < 4; ++x1) {
      r.configs.tile.push_back(static_cast<float>(x0));
      r.configs.tile.push_back(static_cast<float>(x1));
      r.configs.runtimes.push_back(1 + g + (x0 - 3) * (x0 - 3) + 0.5 * x1);
    }
  }
  r.configs.count = 32;
  return r;
}

std::unique_ptr<data::MemoryCollection> grid_collection(int graphs) {
  std::vector<data::GraphRecord> records;
  for (int g = 0; g < graphs; ++g) records.push_back(grid_graph(g));
  return std::make_unique<data::MemoryCollection>(data::CollectionId::parse("tile:xla"), "train",
                                                  std::move(records));
}

XgbOptions small_options() {
  XgbOptions o;
  o.rounds = 30;
  o.max_depth = 4;
  o.eta = 0.3;
  o.threads = 1;
  return o;
}

TEST(XgbRanker, RanksTheObviousBestFirst) {
  auto train_set = grid_collection(3);
  const XgbRanker ranker = XgbRanker::train(*train_set, small_options());
  const data::GraphRecord held_out = grid_graph(5);
  const std::vector<double> costs = ranker.score(held_out.graph, held_out.configs.view());
  ASSERT_EQ(costs.size(), 32u);
  const auto best = std::min_element(costs.begin(), costs.end()) - costs.begin();
  EXPECT_EQ(best, 3 * 4 + 0);                            // (x0, x1) = (3, 0)
  EXPECT_EQ(ranker.options().features.config_width, 2);  // filled from the data
}

TEST(XgbRanker, AGraphWithoutRuntimesIsAnError) {
  std::vector<data::GraphRecord> records{grid_graph(0), grid_graph(1)};
  records[1].source = "g1.npz";
  records[1].configs.runtimes.clear();
  const data::MemoryCollection train_set(data::CollectionId::parse("tile:xla"), "train",
                                         std::move(records));
  try {
    XgbRanker::train(train_set, small_options());
    ADD_FAILURE() << "trained on a graph without runtimes";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "g1.npz: no runtimes to train on (split train)");
  }
}

TEST(XgbRanker, SaveAndLoadGiveTheSameScores) {
  auto train_set = grid_collection(2);
  const XgbRanker ranker = XgbRanker::train(*train_set, small_options());
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("graphcost_xgb_" + std::to_string(::getpid()) + ".xgb"))
                               .string();
  ranker.save(path);
  const XgbRanker loaded = XgbRanker::load(path, ranker.options());
  const data::GraphRecord g = grid_graph(1);
  EXPECT_EQ(loaded.score(g.graph, g.configs.view(), {0, 5, 13}),
            ranker.score(g.graph, g.configs.view(), {0, 5, 13}));
  std::filesystem::remove(path);
}

TEST(XgbRanker, BadModelFileIsAnError) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("graphcost_bad_" + std::to_string(::getpid()) + ".xgb"))
                               .string();
  std::ofstream(path) << "{\"learner\": 3, not a model";
  EXPECT_THROW(XgbRanker::load(path, XgbOptions{}), Error);
  std::filesystem::remove(path);
  EXPECT_THROW(XgbRanker::load(path, XgbOptions{}), Error);  // missing
  XgbOptions no_rounds = small_options();
  no_rounds.rounds = 0;
  EXPECT_THROW(XgbRanker::train(*grid_collection(1), no_rounds), Error);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(XgbOptions, JsonComesFromTheTableAndReadsBack) {
  XgbOptions o = small_options();
  o.max_configs_per_graph = 0;
  o.seed = 7;
  o.features.kind = data::ConfigKind::Layout;
  o.features.layout_nodes = 26;
  nlohmann::json j;
  to_json(j, o);
  EXPECT_EQ(j.dump(),
            "{\"colsample\":1.0,\"eta\":0.3,\"features\":{\"config_width\":0,\"kind\":\"layout\","
            "\"layout_nodes\":26,\"node_feature_width\":0,\"num_opcodes\":256},"
            "\"max_configs_per_graph\":0,\"max_depth\":4,\"objective\":\"rank:pairwise\",\"rounds\":30,"
            "\"seed\":7,\"subsample\":1.0,\"threads\":1}");
  XgbOptions back;
  from_json(j, back);
  nlohmann::json again;
  to_json(again, back);
  EXPECT_EQ(again, j);
  // Only the keys present are read; values are checked separately.
  XgbOptions partial;
  from_json(nlohmann::json{{"rounds", 0}}, partial);
  EXPECT_EQ(partial.rounds, 0);
  EXPECT_EQ(partial.max_depth, XgbOptions{}.max_depth);
  EXPECT_EQ(error_of([&] { check_xgb_options(partial); }),
            "xgboost options: rounds: must be at least 1, got 0");
  EXPECT_EQ(error_of([&] {
              from_json(nlohmann::json{{"depth", 3}}, partial);
            }),
            "xgboost options: depth: unknown key");
  EXPECT_EQ(error_of([&] {
              from_json(nlohmann::json{{"rounds", 2.5}}, partial);
            }),
            "xgboost options: rounds: expected an integer in [-9223372036854775808, "
            "9223372036854775807], got 2.5");
  EXPECT_EQ(error_of([&] {
              from_json(nlohmann::json{{"eta", "fast"}}, partial);
            }),
            "xgboost options: eta: wrong type: expected a number, got a string \"fast\"");
  EXPECT_EQ(error_of([&] {
              from_json(nlohmann::json{{"features", {{"kind", "grid"}}}}, partial);
            }),
            "xgboost features: kind: expected \"tile\" or \"layout\", got \"grid\"");
  XgbOptions ndcg;
  from_json(nlohmann::json{{"objective", "rank:ndcg"}}, ndcg);
  EXPECT_EQ(error_of([&] { check_xgb_options(ndcg); }),
            "xgboost options: objective: \"rank:ndcg\" is not supported (only rank:pairwise suits "
            "the labels)");
  EXPECT_EQ(error_of([&] { from_json(nlohmann::json::array(), partial); }),
            "xgboost options: expected a JSON object");
}

}  // namespace
}  // namespace graphcost::xgb
