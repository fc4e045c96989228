// One function per subcommand: each adds its subcommand, options and callback to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace graphcost::cli {



}  // namespace graphcost::cli
