// Runs graphcost from a test: one helper for every command-line test, so they all read exit
// statuses and output the same way. The program started is graphcost_binary.h's choice: the
// torch-free test program for the torch-free commands, the graphcost binary for the others,
// which the tests' fork server runs where ctest started one (zygote_client.h), saving the
// LibTorch load of each start.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "graphcost_binary.h"
#include "zygote_client.h"

namespace graphcost::testing {

// Which of the command's streams the output holds.
enum class Streams { Both, Stdout };

struct CommandResult {
  int status = -1;  // the exit status; -1 when the command did not exit normally
  std::string output;

  std::pair<int, std::string> pair() const { return {status, output}; }  // for std::tie
};

inline CommandResult run_graphcost(const std::string& args, Streams streams = Streams::Both) {
  CommandResult result;
  const std::string program = graphcost_binary_for(args);
  int wait_status = 0;
  if (program == GRAPHCOST_BINARY &&
      zygote::run(program, args, streams == Streams::Both, &result.output, &wait_status)) {
    result.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
    return result;
  }
  const std::string command = graphcost_command(args) +
                              (streams == Streams::Both ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// The same, with both streams in *output (replacing what it held).
inline int run_graphcost(const std::string& args, std::string* output) {
  CommandResult result = run_graphcost(args);
  *output = std::move(result.output);
  return result.status;
}

// Expects `graphcost args` to exit with status 1 and a "graphcost: error: " line that holds every
// one of parts (the file, the key, the problem).
inline void expect_error_line(const std::string& args, const std::vector<std::string>& parts) {
  auto [status, output] = run_graphcost(args).pair();
  EXPECT_EQ(status, 1) << output;
  const size_t at = output.find("graphcost: error: ");
  ASSERT_NE(at, std::string::npos) << output;
  const std::string line = output.substr(at, output.find('\n', at) - at);
  for (const std::string& part : parts) EXPECT_NE(line.find(part), std::string::npos) << line;
}

}  // namespace graphcost::testing
