// Starts graphcost ranks from a test as a launcher would: the binary (GRAPHCOST_BINARY) run
// several times with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT in its environment, each
// rank's output in files, waited for with a deadline.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace graphcost::testing {

// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// The launcher's environment of rank `rank` of `world_size`, rendezvous on 127.0.0.1:port.
inline std::map<std::string, std::string> rank_environment(int rank, int world_size, int port) {
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(world_size)},
          {"LOCAL_RANK", std::to_string(rank)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)}};
}

// Runs `graphcost args` (split on spaces) in the background with env added to a copy of this
// process's environment without any launcher variables; stdout and stderr go to files.
inline pid_t start_graphcost(const std::string& args, const std::map<std::string, std::string>& env,
                             const std::string& stdout_path, const std::string& stderr_path) {
  std::vector<std::string> words = {GRAPHCOST_BINARY};
  std::istringstream in(args);
  for (std::string word; in >> word;) words.push_back(word == "''" ? "" : word);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  for (const char* name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
                           "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "GLOO_SOCKET_IFNAME"})
    ::unsetenv(name);
  for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
  if (!std::freopen(stdout_path.c_str(), "w", stdout) ||
      !std::freopen(stderr_path.c_str(), "w", stderr))
    ::_exit(127);
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

// The exit status of pid, or -1 when it did not exit by itself within `seconds` (it is then
// killed) or ended by a signal.
inline int wait_for_exit(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace graphcost::testing
