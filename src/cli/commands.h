// One function per subcommand: each adds its subcommand, options and callback to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace graphcost::cli {

// graphcost train: trains a ranker on one collection (src/cli/train.cc).
void add_train_command(CLI::App& app);

}  // namespace graphcost::cli
