// One function per subcommand: each adds its subcommand, options and callback to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace graphcost::cli {

// graphcost synth: a synthetic dataset in the TpuGraphs npz layout (src/cli/synth.cc).
void add_synth_command(CLI::App& app);

}  // namespace graphcost::cli
