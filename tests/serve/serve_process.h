// A `graphcost serve` child process for tests: started on a free loopback port (the port read
// from its first stdout line), its stderr kept in a log file, stopped with SIGTERM.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace graphcost::testing {

class ServeProcess {
 public:
  ServeProcess() = default;
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;
  ~ServeProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
  }

  // Runs `graphcost serve <args> --port 0` with stderr to log_path; true once it printed its
  // port (within 60 s), false (with *message saying why) otherwise.
  bool start(const std::string& args, const std::string& log_path, std::string* message) {
    log_path_ = log_path;
    int out[2];
    if (::pipe(out) != 0) return fail(message, "pipe failed");
    const std::string command =
        std::string("exec ") + GRAPHCOST_BINARY + " serve " + args + " --port 0 2>" + log_path;
    pid_ = ::fork();
    if (pid_ < 0) return fail(message, "fork failed");
    if (pid_ == 0) {
      ::dup2(out[1], STDOUT_FILENO);
      ::close(out[0]);
      ::close(out[1]);
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    stdout_fd_ = out[0];
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      pollfd p{stdout_fd_, POLLIN, 0};
      if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0)
        return fail(message, "no start line within 60 s");
      char buffer[256];
      const ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
      if (n <= 0) return fail(message, "exited before listening: " + line);
      line.append(buffer, static_cast<size_t>(n));
    }
    const std::string marker = "http://127.0.0.1:";
    const size_t at = line.find(marker);
    if (at == std::string::npos) return fail(message, "unexpected start line: " + line);
    port_ = std::stoi(line.substr(at + marker.size()));
    return true;
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }
  bool alive() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }
  void terminate() const { ::kill(pid_, SIGTERM); }
  // Waits up to timeout for the process to exit; its exit status, or -1 (killed, or still
  // running at the deadline, then killed).
  int wait(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  bool fail(std::string* message, const std::string& what) {
    *message = what;
    return false;
  }

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  std::string log_path_;
};

}  // namespace graphcost::testing
