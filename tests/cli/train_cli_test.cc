// The train subcommand's option handling, through the real binary.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;

TEST(TrainCli, HelpShowsDefaults) {
  auto [status, output] = run_graphcost("train --help");
  EXPECT_EQ(status, 0);
  EXPECT_NE(output.find("--iterations INT=1000"), std::string::npos) << output;
  EXPECT_NE(output.find("--loss TEXT=listmle"), std::string::npos) << output;
  EXPECT_NE(output.find("--lr FLOAT=0.001"), std::string::npos) << output;
}

TEST(TrainCli, UnknownConfigKeyIsOneClearError) {
  const std::string path = ::testing::TempDir() + "graphcost_train_bad_config.json";
  std::ofstream(path) << R"({"iterations": 5, "learning_rate": 0.1})";
  auto [status, output] =
      run_graphcost("train --out " + ::testing::TempDir() + "unused --config " + path);
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find(path + ": train options: learning_rate: unknown key"), std::string::npos)
      << output;
  std::remove(path.c_str());
}

TEST(TrainCli, MalformedFlagFails) {
  auto [status, output] = run_graphcost("train --out x --iterations many");
  EXPECT_NE(status, 0);
  EXPECT_NE(output.find("--iterations"), std::string::npos) << output;
}

}  // namespace
