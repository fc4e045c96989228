#include "dist/launch.h"

#include <cerrno>
#include <cstdlib>

#include "core/error.h"

namespace graphcost::dist {

namespace {

std::string lookup(const std::map<std::string, std::string>& env, const std::string& name) {
  const auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

// An environment variable or flag that must hold a whole number in [low, high].
int64_t parse_count(const std::string& text, const std::string& name, int64_t low, int64_t high) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  check_data(!text.empty() && *end == '\0' && errno == 0 && value >= low && value <= high,
             "distributed", name,
             "expected a whole number in [" + std::to_string(low) + ", " + std::to_string(high) +
                 "], got '" + text + "'");
  return value;
}

}  // namespace

std::map<std::string, std::string> launcher_environment() {
  std::map<std::string, std::string> env;
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
                           "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"}) {
    if (const char* value = std::getenv(name)) env[name] = value;
  }
  return env;
}

Launch resolve_launch(const LaunchOptions& options, const std::map<std::string, std::string>& env) {
  Launch launch;
  launch.timeout_s = options.timeout_s;
  check_data(options.timeout_s > 0, "distributed", "--dist-timeout", "must be positive");
  // torchrun's variables first; SLURM's srun sets its own, and the same launch works with them.
  const bool slurm = lookup(env, "WORLD_SIZE").empty() && !lookup(env, "SLURM_NTASKS").empty();
  if (options.world_size > 0) {
    launch.world_size = static_cast<int>(options.world_size);
  } else {
    const std::string size = slurm ? lookup(env, "SLURM_NTASKS") : lookup(env, "WORLD_SIZE");
    if (!size.empty())
      launch.world_size =
          static_cast<int>(parse_count(size, slurm ? "SLURM_NTASKS" : "WORLD_SIZE", 1, 1 << 20));
  }
  check_data(launch.world_size >= 1, "distributed", "--world-size", "must be at least 1");
  if (launch.world_size == 1) return launch;
  std::string rank_name = options.rank >= 0 ? "--rank" : slurm ? "SLURM_PROCID" : "RANK";
  if (options.rank >= 0) {
    launch.rank = static_cast<int>(options.rank);
  } else {
    const std::string rank = lookup(env, rank_name);
    check_data(!rank.empty(), "distributed", rank_name,
               "not set, but the world size is " + std::to_string(launch.world_size) +
                   " (give --rank, or start the ranks with a launcher such as torchrun)");
    launch.rank = static_cast<int>(parse_count(rank, rank_name, 0, 1 << 20));
  }
  check_data(launch.rank < launch.world_size, "distributed", rank_name,
             "rank " + std::to_string(launch.rank) + " is not below the world size " +
                 std::to_string(launch.world_size));
  const std::string local = lookup(env, slurm ? "SLURM_LOCALID" : "LOCAL_RANK");
  if (!local.empty())
    launch.local_rank = static_cast<int>(parse_count(local, "LOCAL_RANK", 0, 1 << 20));
  std::string port;
  if (!options.url.empty()) {
    const std::string scheme = "tcp://";
    const size_t colon = options.url.rfind(':');
    check_data(
        options.url.rfind(scheme, 0) == 0 && colon != std::string::npos && colon > scheme.size(),
        "distributed", "--dist-url", "expected tcp://HOST:PORT, got '" + options.url + "'");
    launch.master_addr = options.url.substr(scheme.size(), colon - scheme.size());
    port = options.url.substr(colon + 1);
  } else {
    launch.master_addr = lookup(env, "MASTER_ADDR");
    port = lookup(env, "MASTER_PORT");
    check_data(!launch.master_addr.empty(), "distributed", "MASTER_ADDR",
               "not set, but the world size is " + std::to_string(launch.world_size) +
                   " (export MASTER_ADDR and MASTER_PORT, give --dist-url tcp://HOST:PORT, or "
                   "set WORLD_SIZE=1 to run alone)");
    check_data(!port.empty(), "distributed", "MASTER_PORT",
               "not set (export it with MASTER_ADDR, or give --dist-url tcp://HOST:PORT)");
  }
  launch.master_port = static_cast<int>(parse_count(port, "MASTER_PORT", 1, 65535));
  return launch;
}

}  // namespace graphcost::dist
