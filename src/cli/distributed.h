// The flags that start a command across processes (train, eval, predict, sweep): one function,
// so every command names and documents them alike. Without them a launcher's environment
// (torchrun, SLURM's srun) decides; see docs/distributed.md.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "data/collection.h"
#include "dist/group.h"

namespace graphcost::cli {

// --dist-url, --world-size, --rank and --dist-timeout, into options.
void add_distributed_options(CLI::App* command, dist::LaunchOptions& options);

// eval and predict across processes: an Error on every rank unless all were started with the
// same options (`options`: the command's, as text), the same runs (their model files' bytes)
// and the same data.
void check_same_scoring_start(dist::Group& group, const std::string& options,
                              const std::vector<std::string>& run_dirs,
                              const data::Collection& collection);

}  // namespace graphcost::cli
