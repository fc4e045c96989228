// Where a process group comes from, without LibTorch: a launcher's environment (torchrun: RANK,
// WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT; SLURM's srun: SLURM_PROCID, SLURM_NTASKS with
// MASTER_ADDR/MASTER_PORT exported), or flags that override it. dist/group.h joins the group;
// a sweep reads the same environment to pick its share of the runs.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace graphcost::dist {

// What the command line says; unset fields come from the environment.
struct LaunchOptions {
  std::string url;          // tcp://HOST:PORT of rank 0's store; empty: MASTER_ADDR:MASTER_PORT
  int64_t world_size = 0;   // <= 0: WORLD_SIZE, else SLURM_NTASKS, else 1
  int64_t rank = -1;        // < 0: RANK, else SLURM_PROCID
  double timeout_s = 300;   // rendezvous and every collective; a dead rank ends the others
};

// The resolved launch: who this process is and where rank 0's store listens.
struct Launch {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr;
  int master_port = 0;
  double timeout_s = 300;
};

// Resolves options against an environment (name -> value; the process's in production). An
// Error names the problem: RANK >= WORLD_SIZE, a missing MASTER_ADDR or MASTER_PORT, a bad url.
Launch resolve_launch(const LaunchOptions& options, const std::map<std::string, std::string>& env);
// The variables resolve_launch reads, from this process's environment.
std::map<std::string, std::string> launcher_environment();

}  // namespace graphcost::dist
