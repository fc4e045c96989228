#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include "run_graphcost.h"

namespace {

using graphcost::testing::run_graphcost;

TEST(SynthCli, UnknownScaleFailsClearly) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("graphcost_synth_cli_" + std::to_string(::getpid()));
  std::string output;
  EXPECT_NE(run_graphcost("synth --out " + out.string() + " --scale tiny", &output), 0);
  EXPECT_NE(output.find("unknown scale 'tiny' (valid: small, medium, large)"), std::string::npos)
      << output;
  EXPECT_FALSE(std::filesystem::exists(out / "npz"));
}

TEST(SynthCli, HelpShowsDefaults) {
  std::string output;
  EXPECT_EQ(run_graphcost("synth --help", &output), 0);
  EXPECT_NE(output.find("--scale TEXT=small"), std::string::npos) << output;
  EXPECT_NE(output.find("=0.01"), std::string::npos) << output;
}

TEST(SynthCli, NegativeNoiseIsRejected) {
  std::string output;
  EXPECT_NE(run_graphcost("synth --out /nonexistent/x --noise -1", &output), 0);
  EXPECT_NE(output.find("--noise"), std::string::npos) << output;
}

}  // namespace
