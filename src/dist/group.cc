#include "dist/group.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/progress.h"

extern char** environ;

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

// The first line of a c10d or Gloo error (they append a stack trace and source locations).
std::string first_line(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  std::string text = c10_error ? c10_error->what_without_backtrace() : e.what();
  const size_t cut = text.find('\n');
  return cut == std::string::npos ? text : text.substr(0, cut);
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

Launch resolve_launch(const LaunchOptions& options,
                      const std::map<std::string, std::string>& env) {
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
  if (!local.empty()) launch.local_rank = static_cast<int>(parse_count(local, "LOCAL_RANK", 0, 1 << 20));
  std::string port;
  if (!options.url.empty()) {
    const std::string scheme = "tcp://";
    const size_t colon = options.url.rfind(':');
    check_data(options.url.rfind(scheme, 0) == 0 && colon != std::string::npos &&
                   colon > scheme.size(),
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

struct Group::State {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
};

Group::Group(const Launch& launch) : launch_(launch), state_(std::make_unique<State>()) {
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(launch.timeout_s * 1000));
  const std::string where = "rank " + std::to_string(launch.rank) + " of " +
                            std::to_string(launch.world_size) + " (master " +
                            launch.master_addr + ":" + std::to_string(launch.master_port) + ")";
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<uint16_t>(launch.master_port);
    // torchrun's static rendezvous (--nnodes with --master_addr) hosts its own store on
    // MASTER_PORT and says so with TORCHELASTIC_USE_AGENT_STORE: every rank is its client then.
    const char* agent_store = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
    const bool launcher_hosts = agent_store != nullptr && std::string(agent_store) == "True";
    store_options.isServer = launch.rank == 0 && !launcher_hosts;
    store_options.numWorkers = static_cast<size_t>(launch.world_size);
    store_options.waitWorkers = false;  // the count below waits, and names who is missing
    store_options.timeout = timeout;
    auto tcp = c10::make_intrusive<c10d::TCPStore>(launch.master_addr, store_options);
    // A restart by the launcher meets in a fresh key space of the same store.
    const char* restart = std::getenv("TORCHELASTIC_RESTART_COUNT");
    state_->store = c10::make_intrusive<c10d::PrefixStore>(
        std::string("graphcost/") + (restart ? restart : "0"), tcp);
  } catch (const std::exception& e) {
    throw Error("distributed", "rendezvous",
                where + ": " + first_line(e) +
                    " (is rank 0 running, MASTER_ADDR reachable and MASTER_PORT free?)");
  }
  // Every rank counts itself in and waits for the others here, so that a rank that never comes
  // is named as such within the timeout (Gloo's own connection phase would wait longer and say
  // only "Socket Timeout").
  int64_t joined = 0;
  try {
    state_->store->add("joined", 1);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while ((joined = state_->store->add("joined", 0)) < launch.world_size &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } catch (const std::exception& e) {
    throw Error("distributed", "rendezvous", where + ": " + first_line(e));
  }
  check_data(joined >= launch.world_size, "distributed", "rendezvous",
             where + ": only " + std::to_string(joined) + " of " +
                 std::to_string(launch.world_size) + " ranks came within " +
                 std::to_string(static_cast<int64_t>(launch.timeout_s)) +
                 " s (--dist-timeout); start every rank with the same MASTER_ADDR:MASTER_PORT");
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // As torch.distributed picks the interface: GLOO_SOCKET_IFNAME names one or several.
    if (const char* names = std::getenv("GLOO_SOCKET_IFNAME"); names && *names) {
      std::stringstream list(names);
      for (std::string name; std::getline(list, name, ',');)
        if (!name.empty())
          options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
    } else {
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    options->threads = 2;
    state_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(
        state_->store, launch.rank, launch.world_size, options);
  } catch (const std::exception& e) {
    throw Error("distributed", "process group", where + ": " + first_line(e));
  }
}

Group::~Group() {
  // A group whose peer died may have Gloo threads blocked on it; destroying it would wait for
  // them. The process is ending with an error then, so the group is left to the OS.
  if (failed_) (void)state_.release();
}

void Group::fail(const std::string& what, const std::exception& e) {
  failed_ = true;
  throw Error("distributed",
              "rank " + std::to_string(rank()) + " of " + std::to_string(size()),
              what + " failed: " + first_line(e) +
                  " (another rank exited or stopped answering; see its output)");
}

void Group::allreduce_sum(torch::Tensor& flat) {
  const auto start = std::chrono::steady_clock::now();
  try {
    std::vector<torch::Tensor> tensors{flat};
    state_->group->allreduce(tensors)->wait();
  } catch (const std::exception& e) {
    fail("allreduce", e);
  }
  allreduce_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  allreduce_bytes_ += flat.numel() * static_cast<int64_t>(flat.element_size());
  ++allreduce_calls_;
}

void Group::broadcast(torch::Tensor& flat, int root) {
  try {
    std::vector<torch::Tensor> tensors{flat};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    state_->group->broadcast(tensors, options)->wait();
  } catch (const std::exception& e) {
    fail("broadcast", e);
  }
}

std::vector<std::string> Group::allgather(const std::string& bytes) {
  // Gloo gathers tensors of one size: the sizes first, then every rank's bytes padded to the
  // largest.
  std::vector<std::string> out(static_cast<size_t>(size()));
  try {
    torch::Tensor length = torch::tensor({static_cast<int64_t>(bytes.size())}, torch::kInt64);
    std::vector<std::vector<torch::Tensor>> lengths(1);
    for (int r = 0; r < size(); ++r) lengths[0].push_back(torch::empty({1}, torch::kInt64));
    std::vector<torch::Tensor> input{length};
    state_->group->allgather(lengths, input)->wait();
    int64_t longest = 1;
    for (const auto& l : lengths[0]) longest = std::max(longest, l.item<int64_t>());
    torch::Tensor padded = torch::zeros({longest}, torch::kUInt8);
    std::memcpy(padded.data_ptr<uint8_t>(), bytes.data(), bytes.size());
    std::vector<std::vector<torch::Tensor>> gathered(1);
    for (int r = 0; r < size(); ++r) gathered[0].push_back(torch::empty({longest}, torch::kUInt8));
    std::vector<torch::Tensor> mine{padded};
    state_->group->allgather(gathered, mine)->wait();
    for (int r = 0; r < size(); ++r)
      out[r].assign(reinterpret_cast<const char*>(gathered[0][r].data_ptr<uint8_t>()),
                    static_cast<size_t>(lengths[0][r].item<int64_t>()));
  } catch (const std::exception& e) {
    fail("allgather", e);
  }
  return out;
}

void Group::barrier() {
  try {
    state_->group->barrier()->wait();
  } catch (const std::exception& e) {
    fail("barrier", e);
  }
}

std::unique_ptr<Group> join(const LaunchOptions& options) {
  const Launch launch = resolve_launch(options, launcher_environment());
  if (launch.world_size == 1) return nullptr;
  auto group = std::make_unique<Group>(launch);
  if (!group->leader()) show_progress_lines(false);
  return group;
}

}  // namespace graphcost::dist
