#include "sweep/processes.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

#include "core/error.h"
#include "train/interrupt.h"

namespace graphcost::sweep {

namespace {

// Starts a child with its output appended to its log.
pid_t launch(const ChildCommand& command) {
  std::vector<std::string> args = command.args;
  check_data(!args.empty(), "sweep", "", "a child process needs a program");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  check_data(pid >= 0, "sweep", "", "cannot start a training process");
  if (pid == 0) {
    // A run outlives no sweep: if the sweep dies (even by SIGKILL) the run is asked to stop at
    // a checkpoint, and the next sweep resumes it.
    prctl(PR_SET_PDEATHSIG, SIGINT);
    if (getppid() != parent) _exit(130);
    for (const auto& [name, value] : command.environment) setenv(name.c_str(), value.c_str(), 1);
    std::FILE* out = std::freopen(command.log.c_str(), "a", stdout);
    if (out == nullptr || dup2(fileno(stdout), STDERR_FILENO) < 0) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

void run_children(int64_t count, int64_t jobs, const std::function<ChildCommand(int64_t)>& start,
                  const std::function<void(int64_t, const ChildExit&)>& finished) {
  check_data(jobs > 0, "sweep", "--jobs", "must be positive");
  std::map<pid_t, std::pair<int64_t, std::chrono::steady_clock::time_point>> running;
  int64_t next = 0;
  bool forwarded = false;
  while (next < count || !running.empty()) {
    const bool stopping = train::stop_requested();
    while (!stopping && next < count && static_cast<int64_t>(running.size()) < jobs) {
      const ChildCommand command = start(next);
      running[launch(command)] = {next, std::chrono::steady_clock::now()};
      ++next;
    }
    if (stopping && !forwarded) {
      // Children share the terminal's process group and usually got the signal already; a
      // sweep stopped by `kill` (SIGINT or SIGTERM) passes it on so every run checkpoints.
      for (const auto& [pid, _] : running) kill(pid, SIGINT);
      forwarded = true;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) {
      // Polled rather than blocking, so that the stop flag is seen while children run.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    ChildExit exit;
    exit.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    exit.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.second).count();
    const int64_t index = it->second.first;
    running.erase(it);
    finished(index, exit);
  }
}

}  // namespace graphcost::sweep
