// The tests' fork server ("zygote", tests/cli/zygote_main.cc) and its client (zygote_client.h):
// what one request and its answer are on the server's Unix socket.
//
// Why it exists: starting graphcost costs about 0.45 s of CPU before main() (loading LibTorch's
// shared libraries and registering its operators), and the command-line tests start it about 300
// times. The server pays that once per ctest run: it is graphcost's own program (the same
// graphcost_program library), started before any test and never running a command itself; for
// each request it forks, and the child runs the command line as `graphcost` would, on the
// client's standard streams, directory and environment.
//
// A request: one sendmsg whose ancillary data holds three descriptors (the command's stdin,
// stdout and stderr) and whose bytes are a RequestHeader; then header.bytes bytes: the working
// directory, the argc arguments (argv[0] first) and the envc "NAME=value" strings, each ending
// in a NUL. argc 0 asks the server to exit. The answer: the command's wait status (waitpid's raw
// int), 4 bytes, after the command has ended.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace graphcost::testing::zygote {

constexpr uint32_t kMagic = 0x7a79676fu;  // "zygo"

struct RequestHeader {
  uint32_t magic = kMagic;
  uint32_t argc = 0;
  uint32_t envc = 0;
  uint32_t bytes = 0;  // of the strings that follow
};

// The first message of a request, as sendmsg and recvmsg take it: the header's bytes and room for
// the three descriptors.
struct RequestMessage {
  RequestHeader header;
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  iovec io{&header, sizeof header};
  msghdr message{};

  RequestMessage() {
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
  }
  RequestMessage(const RequestMessage&) = delete;
  RequestMessage& operator=(const RequestMessage&) = delete;

  // Puts the three descriptors into the message (the client's side).
  void set_fds(const int fds[3]) {
    cmsghdr* fd_message = CMSG_FIRSTHDR(&message);
    fd_message->cmsg_level = SOL_SOCKET;
    fd_message->cmsg_type = SCM_RIGHTS;
    fd_message->cmsg_len = CMSG_LEN(3 * sizeof(int));
    std::memcpy(CMSG_DATA(fd_message), fds, 3 * sizeof(int));
  }
  // The three descriptors a received message holds (the server's side); false if it has none.
  bool get_fds(int fds[3]) {
    cmsghdr* fd_message = CMSG_FIRSTHDR(&message);
    if (fd_message == nullptr || fd_message->cmsg_type != SCM_RIGHTS ||
        fd_message->cmsg_len != CMSG_LEN(3 * sizeof(int))) {
      return false;
    }
    std::memcpy(fds, CMSG_DATA(fd_message), 3 * sizeof(int));
    return true;
  }
};

// Reads exactly size bytes; false at an error or the end of the stream first.
inline bool read_all(int fd, void* data, size_t size) {
  char* at = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The environment variable that names the server's socket for the tests (tests/CMakeLists.txt
// sets it for every ctest entry that needs the server); where it is unset the tests start
// graphcost as a process of its own.
constexpr const char* kSocketVariable = "GRAPHCOST_TEST_ZYGOTE";

}  // namespace graphcost::testing::zygote
