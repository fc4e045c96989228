// graphcost: learned cost models that rank compiler configurations.
#include "cli/program.h"

int main(int argc, char** argv) {
  return graphcost::cli::run_program(argc, argv, graphcost::cli::every_command());
}
