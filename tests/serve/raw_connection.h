// A plain TCP connection to a loopback port for the serve tests: sends exact bytes (trickled
// headers, a smuggled request, two Content-Length headers) and reads what comes back. Every
// wait is bounded.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>

namespace graphcost::testing {

class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }

  // False once the peer has closed (or reset) the connection.
  bool send(const std::string& bytes) {
    size_t sent = 0;
    while (fd_ >= 0 && sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return fd_ >= 0;
  }

  // Reads until the peer closes the connection or `timeout` passes; what arrived. *closed says
  // whether the peer closed it (end of stream or reset).
  std::string read_until_closed(std::chrono::milliseconds timeout, bool* closed) {
    std::string out;
    *closed = read_some(out, timeout, "");
    return out;
  }

  // Reads until `text` has arrived, the peer closes or `timeout` passes; what arrived.
  std::string read_until(const std::string& text, std::chrono::milliseconds timeout) {
    std::string out;
    read_some(out, timeout, text);
    return out;
  }

  // True when the peer has closed the connection, looking for up to `timeout` (bytes that
  // arrive meanwhile are dropped).
  bool closed_by_peer(std::chrono::milliseconds timeout) {
    std::string ignored;
    return read_some(ignored, timeout, "");
  }

 private:
  // Appends to out until the peer closes (true), `until` is in out, or the time is up (false).
  bool read_some(std::string& out, std::chrono::milliseconds timeout, const std::string& until) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (fd_ >= 0) {
      if (!until.empty() && out.find(until) != std::string::npos) return false;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return false;  // the time is up
      char buffer[65536];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return true;  // end of stream, or reset
      out.append(buffer, static_cast<size_t>(n));
    }
    return true;
  }

  int fd_ = -1;
};

}  // namespace graphcost::testing
