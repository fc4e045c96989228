// Child processes N at a time: what a sweep trains its runs with. Each child runs a command line
// with its output (stdout and stderr) appended to a log file; a child outlives no parent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace graphcost::sweep {

// One child: its program and arguments (args[0] is the program's path, run as given, not
// looked up in PATH), the file its output is appended to, and variables set in its environment.
struct ChildCommand {
  std::vector<std::string> args;
  std::string log;
  std::map<std::string, std::string> environment;
};

// How a child ended: exited with status 0, and its wall time in seconds.
struct ChildExit {
  bool succeeded = false;
  double seconds = 0;
};

// Runs children 0 .. count-1 in order, at most `jobs` at a time: start(i) is called just before
// child i starts and returns its command; finished(i, exit) as it ends (in the order they end).
// Polls train::stop_requested (train/interrupt.h): once set, starts no more children, sends
// SIGINT once to those running (so each stops at a checkpoint) and waits for them. A child is
// sent SIGINT when this process dies, even by SIGKILL. An Error when a child cannot be started.
void run_children(int64_t count, int64_t jobs, const std::function<ChildCommand(int64_t)>& start,
                  const std::function<void(int64_t, const ChildExit&)>& finished);

}  // namespace graphcost::sweep
