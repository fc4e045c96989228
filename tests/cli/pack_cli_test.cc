// `graphcost pack` end to end on the real AlexNet layout file, checked against the facts in
// shared/data/README.md, through the pack reader only.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "io/pack.h"

namespace graphcost::cli {
namespace {

std::string temp_dir() {
  auto dir =
      std::filesystem::temp_directory_path() / ("graphcost_pack_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

int run(const std::string& arguments) {
  const std::string command = std::string(GRAPHCOST_BINARY) + " " + arguments + " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PackCommand, PacksTheAlexNetLayoutFile) {
  const std::string npz =
      std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!std::filesystem::exists(npz)) GTEST_SKIP() << "shared data absent: " << npz;
  const std::string out = temp_dir() + "/alexnet.gcpack";
  ASSERT_EQ(run("pack " + npz + " --collection layout:xla:default --split train --out " + out +
                " --keep-duplicates"),
            0);
  io::verify_pack(out);
  io::PackCollection pack(out);
  EXPECT_EQ(pack.id().space, "xla");
  EXPECT_EQ(pack.id().search, "default");
  EXPECT_EQ(pack.split(), "train");
  ASSERT_EQ(pack.size(), 1);
  const data::Graph& g = pack.graph(0);
  EXPECT_EQ(g.name, "alexnet_layout_reduced");
  EXPECT_EQ(g.num_nodes, 372);
  EXPECT_EQ(g.num_edges(), 597);
  EXPECT_EQ(g.feature_width, 70);
  EXPECT_EQ(g.configurable_nodes.size(), 26u);
  EXPECT_EQ(g.node_splits.size(), 3u);
  const data::ConfigView v = pack.configs(0);
  EXPECT_EQ(v.count, 47712);
  EXPECT_EQ(v.nodes, 26);
  EXPECT_EQ(v.width, 10);
  ASSERT_TRUE(v.has_runtimes());
  const auto [lo, hi] = std::minmax_element(v.runtimes, v.runtimes + v.count);
  EXPECT_NEAR(*lo, 79.5e6, 0.1e6);
  EXPECT_NEAR(*hi, 428.8e6, 0.1e6);
  // Layout values in the release are small integers in [-1, 5].
  const auto [min_value, max_value] =
      std::minmax_element(v.layout, v.layout + v.count * v.nodes * v.width);
  EXPECT_GE(*min_value, -1);
  EXPECT_LE(*max_value, 5);

  // Merging duplicates (the default) keeps the distinct configurations only.
  const std::string merged = temp_dir() + "/alexnet_merged.gcpack";
  ASSERT_EQ(run("pack " + npz + " --collection layout:xla:default --split train --out " + merged),
            0);
  EXPECT_EQ(io::PackCollection(merged).configs(0).count, 29905);
}

TEST(PackCommand, MissingInputFailsWithoutWritingAPack) {
  const std::string out = temp_dir() + "/missing.gcpack";
  EXPECT_NE(run("pack " + temp_dir() + "/no_such_folder --collection tile:xla --out " + out), 0);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace graphcost::cli
