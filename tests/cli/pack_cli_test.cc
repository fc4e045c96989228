// `graphcost pack` end to end on the real AlexNet layout file, checked against the facts in
// shared/data/README.md, through the pack reader only.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/atomic_file.h"
#include "core/error.h"
#include "io/pack.h"
#include "graphcost_binary.h"

namespace graphcost::cli {
namespace {

std::string temp_dir() {
  auto dir =
      std::filesystem::temp_directory_path() / ("graphcost_pack_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

int run_status(const std::string& arguments) {
  const std::string command = graphcost::testing::graphcost_command(arguments) + " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PackCommand, PacksTheAlexNetLayoutFile) {
  const std::string npz =
      std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!std::filesystem::exists(npz)) GTEST_SKIP() << "shared data absent: " << npz;
  const std::string out = temp_dir() + "/alexnet.gcpack";
  ASSERT_EQ(run_status("pack " + npz + " --collection layout:xla:default --split train --out " +
                       out + " --keep-duplicates"),
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
  ASSERT_EQ(run_status("pack " + npz + " --collection layout:xla:default --split train --out " +
                       merged),
            0);
  EXPECT_EQ(io::PackCollection(merged).configs(0).count, 29905);
}

TEST(PackCommand, MissingInputFailsWithoutWritingAPack) {
  const std::string out = temp_dir() + "/missing.gcpack";
  EXPECT_NE(
      run_status("pack " + temp_dir() + "/no_such_folder --collection tile:xla --out " + out), 0);
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A Kernel Tuner cache of one device (a shipped one: an unknown device is a warning line),
// kernel "toy": x in {1, 2, 4}, a time for each.
void write_toy_cache(const std::string& path, const std::string& device) {
  nlohmann::json cache = nlohmann::json::object();
  for (int x : {1, 2, 4}) cache[std::to_string(x)] = {{"x", x}, {"time", 1.0 + x}};
  write_file_atomically(path, nlohmann::json{{"kernel_name", "toy"},
                                             {"device_name", device},
                                             {"tune_params_keys", {"x"}},
                                             {"cache", cache}}
                                  .dump());
}

// stderr holds one progress line, the last, with the right total for every kind of input: a
// Kernel Tuner folder and cache (read whole), record files (one graph per .npz), a pack.
TEST(PackCommand, OneFinalProgressLineWithTheInputsGraphCount) {
  namespace fs = std::filesystem;
  const fs::path dir = temp_dir() + "/progress";
  fs::create_directories(dir / "caches");
  write_toy_cache((dir / "caches" / "a.json").string(), "NVIDIA RTX A4000");
  write_toy_cache((dir / "caches" / "b.json").string(), "NVIDIA RTX A6000");
  const std::string rate = R"( [0-9]+\.[0-9]{2} graphs/s elapsed [0-9]+s \| )";
  auto expect_lines = [&](const std::string& args, const std::string& progress_line) {
    const std::string out = (dir / "out.gcpack").string();
    fs::remove(out);
    const std::string stderr_path = (dir / "stderr").string();
    const std::string command =
        graphcost::testing::graphcost_command(args) + " --out " + out + " > /dev/null 2> " + stderr_path;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const std::string err = read_file(stderr_path);
    EXPECT_TRUE(std::regex_match(err, std::regex(progress_line + "\n"))) << args << "\n" << err;
  };
  expect_lines("pack " + (dir / "caches").string() + " --collection tile:xla",
               R"(pack 2/2 graphs \(100\.0%\))" + rate + "toy_NVIDIA_RTX_A6000");
  expect_lines("pack " + (dir / "caches" / "a.json").string() + " --collection tile:xla",
               R"(pack 1/1 graphs \(100\.0%\))" + rate + "toy_NVIDIA_RTX_A4000");
  fs::copy_file(dir / "out.gcpack", dir / "a.gcpack");
  expect_lines("pack " + (dir / "a.gcpack").string() + " --collection tile:xla",
               R"(pack 1/1 graphs \(100\.0%\))" + rate + "toy_NVIDIA_RTX_A4000");
  // Record files: a split folder of three .npz files, one graph each.
  ASSERT_EQ(run_status("synth --out " + (dir / "synth").string() +
                       " --seed 2 --scale small --threads 1"),
            0);
  const fs::path split = dir / "synth" / "npz" / "tile" / "xla" / "valid";
  int64_t files = 0;
  std::string last;
  for (const auto& entry : fs::directory_iterator(split)) {
    ++files;
    last = std::max(last, entry.path().stem().string());
  }
  expect_lines("pack " + split.string() + " --collection tile:xla --split valid",
               "pack " + std::to_string(files) + "/" + std::to_string(files) +
                   R"( graphs \(100\.0%\))" + rate + last);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace graphcost::cli
