// graphcost_torch_free: graphcost's own program (cli/program.h) with only the commands that need
// no LibTorch, for the CLI tests of those commands (tests/cli/graphcost_binary.h). Built for tests
// only; users run graphcost, which holds every command.
#include "cli/program.h"

int main(int argc, char** argv) {
  return graphcost::cli::run_program(argc, argv, graphcost::cli::torch_free_commands());
}
