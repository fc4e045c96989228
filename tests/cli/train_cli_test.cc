// The train subcommand's option handling, through the real binary.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

// Runs the graphcost binary with args; returns its exit status and combined output.
std::pair<int, std::string> run_graphcost(const std::string& args) {
  const std::string command = std::string(GRAPHCOST_BINARY) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

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
