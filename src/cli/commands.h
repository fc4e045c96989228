// One function per subcommand: each adds its subcommand, options and callback to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace graphcost::cli {

void add_pack_command(CLI::App& app);

}  // namespace graphcost::cli
