// The tests' fork server (zygote_main.cc) runs a command line as a fresh graphcost process does:
// the same output, exit status, directory and environment. Under ctest the server is there and
// must be used (a server that stopped answering would leave every test passing, slowly).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "zygote_client.h"

namespace {

namespace fs = std::filesystem;
namespace zygote = graphcost::testing::zygote;

struct Finished {
  bool ran = false;
  int status = -1;
  std::string output;
};

Finished in_server(const std::string& arguments, bool with_stderr = true) {
  Finished finished;
  int wait_status = 0;
  finished.ran = zygote::run(GRAPHCOST_BINARY, arguments, with_stderr, &finished.output,
                             &wait_status);
  finished.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  return finished;
}

Finished started(const std::string& arguments, bool with_stderr = true) {
  Finished finished;
  const std::string command = std::string(GRAPHCOST_BINARY) + " " + arguments +
                              (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) finished.output.append(buffer, n);
  const int status = ::pclose(pipe);
  finished.ran = true;
  finished.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return finished;
}

class ZygoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv(zygote::kSocketVariable) == nullptr) {
      GTEST_SKIP() << zygote::kSocketVariable << " is not set: no fork server (run under ctest)";
    }
  }
};

TEST_F(ZygoteTest, RunsCommandsAsAFreshProcessDoes) {
  // Success, a command's error (status 1), a bad command line (CLI11's status), an unknown
  // command (2), stdout alone, and quoted words.
  for (const std::string arguments :
       {"--version", "eval --model /nonexistent/run --data /nonexistent", "train --bogus",
        "frobnicate", "train --help", "eval --model '/no such/run' --data \"/no where\""}) {
    SCOPED_TRACE(arguments);
    const Finished served = in_server(arguments);
    ASSERT_TRUE(served.ran);
    const Finished fresh = started(arguments);
    EXPECT_EQ(served.status, fresh.status);
    EXPECT_EQ(served.output, fresh.output);
    EXPECT_FALSE(served.output.empty());
  }
  // stdout alone: an error's line goes to stderr, help to stdout.
  EXPECT_EQ(in_server("train --bogus", false).output, "");
  EXPECT_EQ(in_server("train --help", false).output, started("train --help", false).output);
  EXPECT_EQ(in_server("train --bogus").status, 106);
  EXPECT_EQ(in_server("eval --model /nonexistent/run --data /nonexistent").status, 1);
}

TEST_F(ZygoteTest, TakesTheCallersDirectoryAndEnvironment) {
  const fs::path root = fs::temp_directory_path() / ("graphcost_zygote_" + std::to_string(::getpid()));
  fs::create_directories(root);
  const fs::path before = fs::current_path();
  fs::current_path(root);
  // A relative --out lands in the caller's directory; $VARIABLE expands as a shell would.
  ::setenv("GRAPHCOST_ZYGOTE_TEST_SCALE", "small", 1);
  const Finished synth = in_server("synth --out data --scale $GRAPHCOST_ZYGOTE_TEST_SCALE --seed 1");
  fs::current_path(before);
  ::unsetenv("GRAPHCOST_ZYGOTE_TEST_SCALE");
  ASSERT_TRUE(synth.ran);
  EXPECT_EQ(synth.status, 0) << synth.output;
  EXPECT_TRUE(fs::exists(root / "data" / "synth_report.json"));
  fs::remove_all(root);
}

TEST_F(ZygoteTest, ShellOnlyArgumentsAreLeftToTheShell) {
  EXPECT_FALSE(in_server("--version > /dev/null").ran);
  EXPECT_FALSE(in_server("--version | cat").ran);
  EXPECT_FALSE(in_server("$(echo --version)").ran);
}

}  // namespace
