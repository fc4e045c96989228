// The client side of the tests' fork server (zygote_protocol.h): runs `graphcost ARGS` through the
// server named by GRAPHCOST_TEST_ZYGOTE, with this process's stdin, directory and environment,
// and collects its output as popen would. Where the variable is unset, no server answers, or the
// arguments hold what only a shell can do (redirections, pipes, command substitution), it says so
// by returning false and the caller starts the program itself.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <wordexp.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "zygote_protocol.h"

extern char** environ;

namespace graphcost::testing::zygote {

// Runs `program ARGS` (argv[0] is program) in the server: stdout, and stderr too where
// with_stderr (else to /dev/null), appended to *output; *wait_status is waitpid's status.
// Returns false, having run nothing, where the server cannot take it.
inline bool run(const std::string& program, const std::string& arguments, bool with_stderr,
                std::string* output, int* wait_status) {
  const char* path = std::getenv(kSocketVariable);
  if (path == nullptr || *path == '\0') return false;
  // The shell's word splitting, quoting and expansions, without command substitution; anything
  // else a shell would do (a redirection, a pipe, `;`) is WRDE_BADCHAR: the caller's shell runs it.
  wordexp_t words;
  if (::wordexp(arguments.c_str(), &words, WRDE_NOCMD) != 0) return false;
  std::string strings;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) {
    ::wordfree(&words);
    return false;
  }
  strings.append(cwd).push_back('\0');
  strings.append(program).push_back('\0');
  for (size_t i = 0; i < words.we_wordc; ++i) strings.append(words.we_wordv[i]).push_back('\0');
  RequestMessage request;
  RequestHeader& header = request.header;
  header.argc = static_cast<uint32_t>(1 + words.we_wordc);
  ::wordfree(&words);
  for (char** variable = environ; *variable != nullptr; ++variable) {
    strings.append(*variable).push_back('\0');
    ++header.envc;
  }
  header.bytes = static_cast<uint32_t>(strings.size());

  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (std::strlen(path) >= sizeof address.sun_path) return false;
  std::strcpy(address.sun_path, path);
  const int connection = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (connection < 0) return false;
  if (::connect(connection, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(connection);
    return false;
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(connection);
    return false;
  }
  const int null = with_stderr ? -1 : ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const int fds[3] = {0, pipe_fds[1], with_stderr ? pipe_fds[1] : null};
  request.set_fds(fds);
  bool sent = ::sendmsg(connection, &request.message, MSG_NOSIGNAL) ==
              static_cast<ssize_t>(sizeof header);
  for (size_t at = 0; sent && at < strings.size();) {
    const ssize_t n = ::send(connection, strings.data() + at, strings.size() - at, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) sent = false;
    else at += static_cast<size_t>(n);
  }
  // The command holds the write end now; this process's copies go, so that EOF means it ended.
  ::close(pipe_fds[1]);
  if (null >= 0) ::close(null);
  if (!sent) {
    ::close(pipe_fds[0]);
    ::close(connection);
    return false;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output->append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  const bool answered = read_all(connection, &status, sizeof status);
  ::close(connection);
  // No answer: the server's process for this request died; report it as a command that did not
  // exit normally (SIGKILL), which the tests read as a failure.
  *wait_status = answered ? status : SIGKILL;
  return true;
}

}  // namespace graphcost::testing::zygote
