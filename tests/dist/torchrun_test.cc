// The README's torchrun command, as written there: Debian's torch.distributed.run starts two
// ranks of the graphcost binary (--standalone, --redirects 1 --tee 1, --no_python), which train
// one run together on tiny synthetic data. Skipped, saying so, where /usr/bin/python3 cannot
// import torch.distributed.run (torch's Python package, Debian python3-torch, is missing).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/atomic_file.h"

namespace {

namespace fs = std::filesystem;
using graphcost::read_file;

// Exit status of a shell command, -1 when it did not exit normally.
int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Torchrun, TheReadmeCommandTrainsOnTwoRanks) {
  const std::string python = "/usr/bin/python3";
  if (shell(python + " -c 'import torch.distributed.run' > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "torch's Python package is missing for " << python
                 << " (Debian: python3-torch): the README's torchrun command cannot run here";
  const fs::path root = fs::temp_directory_path() / ("graphcost_torchrun_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const std::string data = (root / "data").string(), run = (root / "run").string();
  const std::string log = (root / "torchrun.log").string();
  std::ofstream(root / "plan.json") << R"([{"collection": "layout:xla:random", "files": [3, 2, 2],
    "nodes": [130, 160], "configs": [12, 16], "configurable_fraction": [0.1, 0.1]}])";
  ASSERT_EQ(shell(std::string(GRAPHCOST_BINARY) + " synth --out " + data + " --plan " +
                  (root / "plan.json").string() + " --seed 1 --threads 1 > /dev/null 2>&1"),
            0);
  // README.md, "Across machines" (docs/distributed.md): the same flags, a few iterations.
  const std::string command =
      "timeout 100 " + python +
      " -m torch.distributed.run --standalone --nproc_per_node 2 --redirects 1 --tee 1"
      " --no_python " GRAPHCOST_BINARY " train --data " + data +
      " --collection layout:xla:random --out " + run + " --iterations 4 --threads 1 > " + log +
      " 2>&1";
  ASSERT_EQ(shell(command), 0) << command << "\n" << read_file(log);
  const nlohmann::json config = nlohmann::json::parse(read_file(run + "/config.json"));
  EXPECT_EQ(config["world_size"], 2);
  EXPECT_TRUE(fs::exists(run + "/model.pt"));
  int lines = 0;
  std::istringstream metrics(read_file(run + "/metrics.jsonl"));
  for (std::string line; std::getline(metrics, line);) lines += line.empty() ? 0 : 1;
  EXPECT_GT(lines, 0);
  fs::remove_all(root);
}

}  // namespace
