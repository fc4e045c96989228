// The program a test starts for a graphcost command line: graphcost_torch_free
// (GRAPHCOST_TORCH_FREE_BINARY, tests/cli/torch_free_main.cc) when the command word is one of the
// torch-free commands, which it runs through the same code as graphcost; graphcost
// (GRAPHCOST_BINARY) for every other command line. It saves graphcost's start, which loads
// LibTorch (about 0.9 s of CPU), wherever LibTorch is not used.
#pragma once

#include <algorithm>
#include <string>

#include "cli/program.h"

namespace graphcost::testing {

// The path of the program that runs `graphcost <arguments>` ("synth --out x": the torch-free one).
inline std::string graphcost_binary_for(const std::string& arguments) {
  const size_t begin = arguments.find_first_not_of(' ');
  const std::string word =
      begin == std::string::npos ? "" : arguments.substr(begin, arguments.find(' ', begin) - begin);
  const auto& torch_free = cli::torch_free_command_names();
  return std::find(torch_free.begin(), torch_free.end(), word) != torch_free.end()
             ? GRAPHCOST_TORCH_FREE_BINARY
             : GRAPHCOST_BINARY;
}

// `<program> <arguments>` for a shell, with the program graphcost_binary_for chooses.
inline std::string graphcost_command(const std::string& arguments) {
  return graphcost_binary_for(arguments) + " " + arguments;
}

}  // namespace graphcost::testing
