#include "cli/distributed.h"

#include <filesystem>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "dist/collectives.h"
#include "run/run_folder.h"

namespace graphcost::cli {

void add_distributed_options(CLI::App* command, dist::LaunchOptions& options) {
  const std::string group = "Across processes (default: the launcher's environment)";
  command->add_option("--dist-url", options.url,
                      "tcp://HOST:PORT where rank 0 hosts the rendezvous store (default: "
                      "MASTER_ADDR and MASTER_PORT)")
      ->group(group);
  command->add_option("--world-size", options.world_size,
                      "Processes in all (default: WORLD_SIZE, else SLURM_NTASKS, else 1)")
      ->check(signed_64())
      ->group(group);
  command->add_option("--rank", options.rank,
                      "This process's rank, 0 to world size - 1 (default: RANK, else SLURM_PROCID)")
      ->check(signed_64())
      ->group(group);
  command->add_option("--dist-timeout", options.timeout_s,
                      "Seconds to wait for the other ranks at the rendezvous and in each exchange; a "
                      "rank that died or hangs ends the others after it")
      ->check(CLI::PositiveNumber.description(""))
      ->capture_default_str()
      ->group(group);
}

void check_same_scoring_start(dist::Group& group, const std::string& options,
                              const std::vector<std::string>& run_dirs,
                              const data::Collection& collection) {
  dist::check_same_on_every_rank(group, "options", options);
  std::string models;
  for (const std::string& dir : run_dirs)
    for (const std::string& path : run::RunFolder(dir).model_paths())
      models += dist::bytes_digest(read_file(path)) + " ";
  dist::check_same_on_every_rank(group, "models", models);
  dist::check_same_on_every_rank(group, "data", dist::collection_digest(collection));
}

}  // namespace graphcost::cli
