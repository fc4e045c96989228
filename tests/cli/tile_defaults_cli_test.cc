// Tile data starts from defaults of its own (train::tile_defaults: SAGE 64 x 3, G = 2, S = 32,
// 40,000 iterations, the step size divided at 3/4 of the iterations), in train and in a study's
// trials; the options given override them, and layout data keeps train's defaults.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/atomic_file.h"
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;
namespace fs = std::filesystem;
using nlohmann::json;

class TileDefaultsCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("graphcost_tile_defaults_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::ofstream(path("plan.json")) << R"([
      {"collection": "tile:xla", "files": [2, 1, 0], "nodes": [20, 30], "configs": [16, 16],
       "configurable_fraction": [0.1, 0.1]},
      {"collection": "layout:xla:default", "files": [2, 1, 0], "nodes": [128, 160],
       "configs": [16, 16], "configurable_fraction": [0.2, 0.2]}])";
    std::ofstream(path("space.json"))
        << R"({"lr": {"type": "float", "low": 0.0001, "high": 0.01}})";
    std::string output;
    ASSERT_EQ(run_graphcost("synth --out " + path("data") + " --plan " + path("plan.json") +
                                " --seed 3 --threads 1",
                            &output),
              0)
        << output;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static std::string path(const std::string& name) { return (root_ / name).string(); }
  static json config(const std::string& run) {
    return json::parse(graphcost::read_file(run + "/config.json"));
  }
  // train on `collection` with `extra` options; returns its output.
  static std::string train(const std::string& collection, const std::string& out,
                           const std::string& extra) {
    auto [status, output] =
        run_graphcost("train --data " + path("data") + " --collection " + collection +
                      " --threads 1 --valid-split '' --out " + path(out) + " " + extra)
            .pair();
    EXPECT_EQ(status, 0) << output;
    return output;
  }
  static fs::path root_;
};

fs::path TileDefaultsCli::root_;

TEST_F(TileDefaultsCli, TrainOnTileDataStartsFromTheTileDefaults) {
  const std::string output = train("tile:xla", "tile", "--iterations 8");
  EXPECT_NE(output.find("train: tile data: the defaults for tile configurations (--decay-at at "
                        "3/4 of the iterations, --graphs-per-batch 2, --iterations 40000, "
                        "--hidden 64 64 64, --slate-size 32; docs/quality.md); options given "
                        "override them\n"),
            std::string::npos)
      << output;
  const json tile = config(path("tile"));
  EXPECT_EQ(tile["iterations"], 8);        // given
  EXPECT_EQ(tile["decay_at"], json({6}));  // 3/4 of the iterations given
  EXPECT_EQ(tile["graphs_per_batch"], 2);  // the tile defaults
  EXPECT_EQ(tile["slate_size"], 32);
  EXPECT_EQ(tile["model"]["hidden"], json({64, 64, 64}));
  EXPECT_EQ(tile["lr_schedule"], "step");
}

TEST_F(TileDefaultsCli, OptionsGivenOverrideTheTileDefaults) {
  train("tile:xla", "given", "--iterations 8 --decay-at 2 5 --hidden 16 --graphs-per-batch 1");
  const json given = config(path("given"));
  EXPECT_EQ(given["decay_at"], json({2, 5}));
  EXPECT_EQ(given["model"]["hidden"], json({16}));
  EXPECT_EQ(given["graphs_per_batch"], 1);
  EXPECT_EQ(given["slate_size"], 32);  // not given
  // The cosine schedule decays by itself: no step decay is added.
  train("tile:xla", "cosine", "--iterations 8 --lr-schedule cosine");
  EXPECT_EQ(config(path("cosine"))["decay_at"], json::array());
}

TEST_F(TileDefaultsCli, LayoutDataKeepsTrainsDefaults) {
  const std::string output = train("layout:xla:default", "layout", "--iterations 2");
  EXPECT_EQ(output.find("tile data"), std::string::npos) << output;
  const json layout = config(path("layout"));
  EXPECT_EQ(layout["model"]["hidden"], json({146, 146, 146, 146}));
  EXPECT_EQ(layout["graphs_per_batch"], 4);
  EXPECT_EQ(layout["slate_size"], 10);
  EXPECT_EQ(layout["decay_at"], json::array());
}

// A study's trials on tile data start from the same defaults, each trial's decay at 3/4 of its
// own iterations (here sampled).
TEST_F(TileDefaultsCli, StudyTrialsOnTileDataStartFromTheTileDefaults) {
  std::ofstream(path("space_its.json"))
      << R"({"iterations": {"type": "int", "low": 4, "high": 12, "step": 4}})";
  auto [status, output] =
      run_graphcost("study --data " + path("data") + " --collection tile:xla --space " +
                    path("space_its.json") + " --storage sqlite:///" + path("s.db") +
                    " --study tile --out " + path("s-runs") +
                    " --validate-every 4 --threads 1 --trials 2 --sampler random --pruner none"
                    " --sampler-seed 2")
          .pair();
  ASSERT_EQ(status, 0) << output;
  EXPECT_NE(output.find("study: tile data: the trials start from the defaults for tile "
                        "configurations (--decay-at at 3/4 of the iterations, "),
            std::string::npos)
      << output;
  for (const char* trial : {"trial-0000", "trial-0001"}) {
    const json c = config(path(std::string("s-runs/") + trial));
    const int64_t iterations = c["iterations"].get<int64_t>();
    EXPECT_EQ(c["decay_at"], json({iterations * 3 / 4})) << trial;
    EXPECT_EQ(c["model"]["hidden"], json({64, 64, 64})) << trial;
    EXPECT_EQ(c["slate_size"], 32) << trial;
  }
}

}  // namespace
