// graphcost_test_zygote: graphcost's program (graphcost_program, every command) with a fork-server
// mode for the tests (zygote_protocol.h says why and what a request is).
//   graphcost_test_zygote --test-zygote SOCKET [IDLE_SECONDS]
//       listens on SOCKET, then goes to the background (the call returns once it listens) and
//       serves until asked to stop or IDLE_SECONDS (default 900) pass without a request;
//   graphcost_test_zygote --test-zygote-stop SOCKET
//       asks the server on SOCKET to stop (exits 0 where none listens);
//   graphcost_test_zygote ARGS...
//       is graphcost ARGS... (a command that starts graphcost again, such as sweep, starts this
//       program through /proc/self/exe, and it must be graphcost then).
// The server never runs a command itself: its only state is what graphcost's libraries set up
// before main(), which each forked command starts from as a fresh graphcost would.
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/program.h"
#include "zygote_protocol.h"

namespace {

using graphcost::testing::zygote::kMagic;
using graphcost::testing::zygote::read_all;
using graphcost::testing::zygote::RequestHeader;
using graphcost::testing::zygote::RequestMessage;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "graphcost_test_zygote: error: %s: %s\n", what.c_str(),
               std::strerror(errno));
  std::exit(1);
}

bool socket_address(const std::string& path, sockaddr_un* address) {
  std::memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  if (path.size() >= sizeof address->sun_path) return false;
  std::memcpy(address->sun_path, path.c_str(), path.size());
  return true;
}

// Threads the process has now (/proc/self/task): a fork copies only the calling one, so the
// server must have no other (a lock another thread held would stay held in every command).
int thread_count() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int count = 0;
  while (dirent* entry = ::readdir(dir)) count += entry->d_name[0] != '.';
  ::closedir(dir);
  return count;
}

// The forked command: the client's streams, directory and environment, then graphcost.
[[noreturn]] void run_command(const int fds[3], std::vector<std::string>& strings,
                              uint32_t argc) {
  for (int stream = 0; stream < 3; ++stream) {
    if (::dup2(fds[stream], stream) < 0) ::_exit(126);
  }
  for (int stream = 0; stream < 3; ++stream) {
    if (fds[stream] > 2) ::close(fds[stream]);
  }
  if (::chdir(strings[0].c_str()) != 0) {
    std::fprintf(stderr, "graphcost_test_zygote: cannot enter %s\n", strings[0].c_str());
    ::_exit(126);
  }
  ::clearenv();
  for (size_t i = 1 + argc; i < strings.size(); ++i) ::putenv(strings[i].data());
  std::vector<char*> argv;
  for (uint32_t i = 0; i < argc; ++i) argv.push_back(strings[1 + i].data());
  argv.push_back(nullptr);
  const int status = graphcost::cli::run_program(static_cast<int>(argc), argv.data(),
                                                 graphcost::cli::every_command());
  // Leaves without the static destructors: LibTorch's take about 80 ms at every exit, and the
  // commands' own work is done (files closed and renamed in their scopes; a command that calls
  // std::exit itself still runs them). Only the streams' buffers are written out first.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(status);
}

// One connection, in a process of its own: read the request, fork the command, wait for it and
// answer its wait status.
[[noreturn]] void serve_one(int connection, int listener, const std::string& path) {
  ::close(listener);
  ::signal(SIGCHLD, SIG_DFL);
  ucred peer{};
  socklen_t peer_size = sizeof peer;
  if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0 ||
      peer.uid != ::getuid()) {
    ::_exit(1);  // only the user who started the server may run commands through it
  }
  RequestMessage request;
  const RequestHeader& header = request.header;
  int fds[3] = {-1, -1, -1};
  ssize_t n;
  do {
    n = ::recvmsg(connection, &request.message, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof header) || header.magic != kMagic) ::_exit(1);
  if (header.argc == 0) {  // stop
    ::unlink(path.c_str());
    ::kill(::getppid(), SIGTERM);
    ::_exit(0);
  }
  if (!request.get_fds(fds)) ::_exit(1);
  std::string bytes(header.bytes, '\0');
  if (!read_all(connection, bytes.data(), bytes.size())) ::_exit(1);
  std::vector<std::string> strings;  // cwd, argv..., environment...
  for (size_t begin = 0; begin < bytes.size();) {
    const size_t end = bytes.find('\0', begin);
    if (end == std::string::npos) ::_exit(1);
    strings.push_back(bytes.substr(begin, end - begin));
    begin = end + 1;
  }
  if (strings.size() != 1 + size_t{header.argc} + header.envc) ::_exit(1);
  const pid_t command = ::fork();
  if (command < 0) ::_exit(1);
  if (command == 0) {
    ::close(connection);
    run_command(fds, strings, header.argc);
  }
  for (int fd : fds) ::close(fd);
  int status = 0;
  while (::waitpid(command, &status, 0) < 0) {
    if (errno != EINTR) ::_exit(1);
  }
  const char* at = reinterpret_cast<const char*>(&status);
  for (size_t left = sizeof status; left > 0;) {
    const ssize_t written = ::write(connection, at, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) break;
    at += written;
    left -= static_cast<size_t>(written);
  }
  ::_exit(0);
}

int serve(const std::string& path, int idle_seconds) {
  sockaddr_un address;
  if (!socket_address(path, &address)) {
    std::fprintf(stderr, "graphcost_test_zygote: error: socket path too long: %s\n", path.c_str());
    return 1;
  }
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) fail("socket");
  ::unlink(path.c_str());  // a server left by an interrupted run: its socket is replaced
  const mode_t old_mask = ::umask(0077);  // the socket: its owner only
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    fail("bind " + path);
  }
  ::umask(old_mask);
  if (::listen(listener, 64) != 0) fail("listen " + path);
  // In the background: the caller (a ctest fixture) returns once the socket listens and the
  // server has said it can serve. OpenBLAS starts its thread pool when it loads and shuts it down
  // before a fork (its pthread_atfork handler), so the server, a forked child, has one thread.
  int ready_pipe[2];
  if (::pipe(ready_pipe) != 0) fail("pipe");
  const pid_t server = ::fork();
  if (server < 0) fail("fork");
  if (server > 0) {
    ::close(ready_pipe[1]);
    int threads = 0;
    if (!read_all(ready_pipe[0], &threads, sizeof threads)) threads = -1;
    if (threads != 1) {
      std::fprintf(stderr, "graphcost_test_zygote: error: the server has %d threads; a fork "
                   "server needs one\n", threads);
      return 1;
    }
    std::printf("graphcost_test_zygote: serving %s (pid %d)\n", path.c_str(), server);
    return 0;
  }
  ::close(ready_pipe[0]);
  ::setsid();
  const int threads = thread_count();
  if (::write(ready_pipe[1], &threads, sizeof threads) != sizeof threads || threads != 1) {
    ::_exit(1);
  }
  ::close(ready_pipe[1]);
  const int null = ::open("/dev/null", O_RDWR);
  for (int stream = 0; stream < 3; ++stream) ::dup2(null, stream);
  if (null > 2) ::close(null);
  ::signal(SIGCHLD, SIG_IGN);  // the connections' processes are reaped by the kernel
  for (;;) {
    pollfd wait{listener, POLLIN, 0};
    const int ready = ::poll(&wait, 1, idle_seconds * 1000);
    if (ready == 0) break;  // idle: a run that ended without stopping the server
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const int connection = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    const pid_t session = ::fork();
    if (session == 0) serve_one(connection, listener, path);
    ::close(connection);
  }
  ::unlink(path.c_str());
  return 0;
}

int stop(const std::string& path) {
  sockaddr_un address;
  if (!socket_address(path, &address)) return 0;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket");
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    std::printf("graphcost_test_zygote: no server on %s\n", path.c_str());
    return 0;
  }
  RequestHeader header;  // argc 0: stop
  if (::send(fd, &header, sizeof header, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof header)) {
    fail("send to " + path);
  }
  char byte;
  while (::read(fd, &byte, 1) > 0) {
  }
  ::close(fd);
  std::printf("graphcost_test_zygote: stopped the server on %s\n", path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--test-zygote") == 0) {
    const int idle = argc >= 4 ? std::atoi(argv[3]) : 900;
    return serve(argv[2], idle > 0 ? idle : 900);
  }
  if (argc == 3 && std::strcmp(argv[1], "--test-zygote-stop") == 0) return stop(argv[2]);
  return graphcost::cli::run_program(argc, argv, graphcost::cli::every_command());
}
