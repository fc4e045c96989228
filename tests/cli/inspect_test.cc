// Runs the built binary: `graphcost inspect` with --prune and on Kernel Tuner caches.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

#include "graphcost_binary.h"

namespace graphcost::cli {
namespace {

const std::string kShared = GRAPHCOST_SHARED_DATA;

// The command's stdout and exit status.
std::pair<std::string, int> run(const std::string& arguments) {
  const std::string command = graphcost::testing::graphcost_command(arguments) + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  std::string out;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  return {out, pclose(pipe)};
}

TEST(InspectCommand, PruneShowsKeptNodes) {
  const std::string path = kShared + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data absent: " << path;
  auto [out, status] = run("inspect " + path + " --prune 2 --json");
  ASSERT_EQ(status, 0) << out;
  const nlohmann::json row = nlohmann::json::parse(out)[0]["graphs"][0];
  EXPECT_EQ(row["nodes"], 372);
  EXPECT_EQ(row["kept"], 149);  // see tests/data/prune_test.cc, RealAlexNetGraph
  auto [table, table_status] = run("inspect " + path + " --prune 2");
  ASSERT_EQ(table_status, 0);
  EXPECT_NE(table.find("kept"), std::string::npos) << table;
  EXPECT_NE(run("inspect " + path + " --prune -1").second, 0);
}

TEST(InspectCommand, KernelTunerFolder) {
  const std::string dir = kShared + "/kernel_tuner/convolution";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared data absent: " << dir;
  auto [out, status] = run("inspect " + dir + " --json");
  ASSERT_EQ(status, 0) << out;
  const nlohmann::json c = nlohmann::json::parse(out)[0];
  EXPECT_EQ(c["collection"], "tile:xla");
  EXPECT_EQ(c["files"], 4);
  EXPECT_EQ(c["config_width"], 10);
  EXPECT_EQ(c["graphs"][2]["failed_configs"], 473);  // A6000
  EXPECT_EQ(c["graphs"][2]["default_config"], 386);
}

TEST(InspectCommand, DatasetRootThroughItsNpzFolderSkipsEmptySplits) {
  namespace fs = std::filesystem;
  const std::string file = kShared + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!fs::exists(file)) GTEST_SKIP() << "shared data absent: " << file;
  const fs::path root = fs::temp_directory_path() / ("graphcost_inspect_root_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path collection = root / "npz/layout/xla/default";
  fs::create_directories(collection / "train");
  fs::create_directories(collection / "valid");  // empty: skipped, not an error
  fs::copy_file(file, collection / "train/alexnet.npz");
  for (const std::string& path : {root.string(), (root / "npz").string(), (root / "npz/").string()}) {
    auto [out, status] = run("inspect " + path + " --json");
    ASSERT_EQ(status, 0) << path << ": " << out;
    const nlohmann::json j = nlohmann::json::parse(out);
    ASSERT_EQ(j.size(), 1u) << j;
    EXPECT_EQ(j[0]["collection"], "layout:xla:default");
    EXPECT_EQ(j[0]["split"], "train");
    EXPECT_EQ(j[0]["graphs"][0]["nodes"], 372);
  }
  fs::remove(collection / "train/alexnet.npz");
  EXPECT_EQ(run("inspect " + (root / "npz").string()).second >> 8, 1);  // nothing left to inspect
  fs::remove_all(root);
}

}  // namespace
}  // namespace graphcost::cli
