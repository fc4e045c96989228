// A process group for data-parallel training and sharded scoring across processes and
// machines: torch.distributed's c10d, rendezvous through a TCPStore hosted by rank 0 and
// collectives over TCP with Gloo (both in Debian's LibTorch). Where the group comes from is
// dist/launch.h's; docs/distributed.md says how to launch.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dist/launch.h"

namespace graphcost::dist {

// A joined c10d process group. Every collective is called by every rank in the same order; a
// failure (a rank died, the network broke, the timeout passed) is an Error of one line, and
// the group is then left alone (its threads may be stuck on a dead peer).
class Group {
 public:
  // Rendezvous (rank 0 hosts the TCPStore) and a ProcessGroupGloo on the interface torch picks:
  // GLOO_SOCKET_IFNAME (comma-separated for several), else the host name's address, else
  // loopback.
  explicit Group(const Launch& launch);
  ~Group();
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  int rank() const { return launch_.rank; }
  int size() const { return launch_.world_size; }
  bool leader() const { return launch_.rank == 0; }
  // Which rank handles item i of a list shared out round-robin (graphs, runs).
  int owner(int64_t item) const { return static_cast<int>(item % launch_.world_size); }

  // Sums a contiguous float/double/int64 tensor over the ranks, in place.
  void allreduce_sum(torch::Tensor& flat);
  // Overwrites a contiguous tensor on every rank with rank root's.
  void broadcast(torch::Tensor& flat, int root = 0);
  // Every rank's bytes, in rank order, on every rank.
  std::vector<std::string> allgather(const std::string& bytes);
  void barrier();

  // Time and bytes spent in allreduce_sum, for the benchmark's figures.
  double allreduce_seconds() const { return allreduce_seconds_; }
  int64_t allreduce_bytes() const { return allreduce_bytes_; }
  int64_t allreduce_calls() const { return allreduce_calls_; }

 private:
  [[noreturn]] void fail(const std::string& what, const std::exception& e);

  struct State;
  Launch launch_;
  std::unique_ptr<State> state_;
  bool failed_ = false;
  double allreduce_seconds_ = 0;
  int64_t allreduce_bytes_ = 0;
  int64_t allreduce_calls_ = 0;
};

// Joins the group the launch describes, or returns null when the world size is 1 (nothing
// changes then). Ranks other than 0 stop showing progress lines.
std::unique_ptr<Group> join(const LaunchOptions& options);

}  // namespace graphcost::dist
