#include "xgb/ranker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

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
  EXPECT_EQ(best, 3 * 4 + 0);  // (x0, x1) = (3, 0)
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

}  // namespace
}  // namespace graphcost::xgb
