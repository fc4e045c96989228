// `train --prune` end to end: the run records its pruning, and eval (or predict) applies it to
// whatever data it is given, npz or pack, exactly as if the data had been pruned beforehand.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "data/prune.h"
#include "io/tpugraphs_npz.h"
#include "run_graphcost.h"

namespace graphcost::cli {
namespace {

using graphcost::testing::run_graphcost;
using graphcost::testing::Streams;

// Exit status and stdout (stderr is dropped).
graphcost::testing::CommandResult run_stdout(const std::string& args) {
  return run_graphcost(args, Streams::Stdout);
}

namespace fs = std::filesystem;

nlohmann::json eval_json(const std::string& arguments) {
  auto [status, output] = run_stdout("eval --json --split train --max-configs 300 --threads 1 " + arguments);
  EXPECT_EQ(status, 0) << arguments;
  return nlohmann::json::parse(output, nullptr, false);
}

TEST(PruneCli, TrainRecordsPruningAndEvalAppliesIt) {
  const std::string npz =
      std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!fs::exists(npz)) GTEST_SKIP() << "shared data absent: " << npz;
  const fs::path dir = fs::temp_directory_path() / ("graphcost_prune_cli_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "pruned");
  const std::string run_dir = (dir / "run").string();
  ASSERT_EQ(run_stdout("train --data " + npz +
                " --collection layout:xla:default --valid-split '' --iterations 3 --slate-size 4 "
                "--threads 1 --hidden 16 16 --prune 1 --out " + run_dir)
                .status,
            0);
  const nlohmann::json config = nlohmann::json::parse(read_file(run_dir + "/config.json"));
  EXPECT_EQ(config["prune_hops"], 1);
  EXPECT_EQ(config["prune_seeds"], "all");

  // The pre-pruned copy: same file stem, so the graph names agree.
  const data::GraphRecord original = io::read_tpugraphs_npz(npz);
  const data::GraphRecord pruned = data::prune_to_config_neighbourhood(original, 1);
  ASSERT_EQ(pruned.graph.num_nodes, 73);  // see tests/data/prune_test.cc
  io::RuntimeColumns runtimes;
  for (double t : pruned.configs.runtimes) runtimes.runtime_ns.push_back(static_cast<int64_t>(t));
  const std::string copy = (dir / "pruned" / fs::path(npz).filename()).string();
  io::write_tpugraphs_npz(copy, pruned, runtimes, false);

  const nlohmann::json on_original = eval_json("--model " + run_dir + " --data " + npz);
  const nlohmann::json on_copy = eval_json("--model " + run_dir + " --data " + copy + " --prune -1");
  ASSERT_TRUE(on_original.is_object());
  EXPECT_EQ(on_original.dump(), on_copy.dump());
  // The pruning is really applied: unpruned, the model sees another graph.
  const nlohmann::json unpruned = eval_json("--model " + run_dir + " --data " + npz + " --prune -1");
  EXPECT_NE(on_original.dump(), unpruned.dump());

  // A pack is pruned as it is read.
  const std::string pack = (dir / "alexnet.gcpack").string();
  ASSERT_EQ(run_stdout("pack " + npz + " --collection layout:xla:default --split train --out " + pack).status, 0);
  EXPECT_EQ(eval_json("--model " + run_dir + " --data " + pack).dump(), on_original.dump());

  // The 1st-place variant: only convolution/dot/reshape nodes seed the neighbourhood.
  const std::string seeded_dir = (dir / "seeded").string();
  ASSERT_EQ(run_stdout("train --data " + pack +
                " --collection layout:xla:default --valid-split '' --iterations 1 --slate-size 4 "
                "--threads 1 --hidden 16 16 --prune 1 --prune-seeds conv-dot-reshape --out " +
                seeded_dir)
                .status,
            0);
  EXPECT_EQ(nlohmann::json::parse(read_file(seeded_dir + "/config.json"))["prune_seeds"],
            "conv-dot-reshape");
  EXPECT_NE(run_stdout("train --data " + pack + " --collection layout:xla:default --iterations 1 "
                "--prune 1 --prune-seeds matmul --out " + (dir / "bad").string())
                .status,
            0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace graphcost::cli
