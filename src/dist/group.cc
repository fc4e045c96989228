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

namespace graphcost::dist {

namespace {

// The first line of a c10d or Gloo error (they append a stack trace and source locations).
std::string first_line(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  std::string text = c10_error ? c10_error->what_without_backtrace() : e.what();
  const size_t cut = text.find('\n');
  return cut == std::string::npos ? text : text.substr(0, cut);
}

}  // namespace

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
