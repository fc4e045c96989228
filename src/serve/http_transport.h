// The network side of graphcost serve: HTTP/1.1 on Boost.Beast and Boost.Asio, event-driven on
// the one thread that calls run(), so a slow or idle client holds a socket and a little memory,
// never a thread. It enforces what a handler cannot: a deadline for a whole request (headers and
// body, from its first byte), an idle time for keep-alive connections, connection limits per
// client address and overall, header and body size limits, exactly one Content-Length, and
// TCP_NODELAY. An answer given before a request's body was read (a refusal after the headers, a
// malformed request) closes the connection, so an unread body is never taken for the next
// request. stop() closes idle and half-received connections at once and lets answers in flight
// finish. Plain C++ behind this header (no Beast in it); see docs/serve.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace graphcost::serve {

struct TransportOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                      // 0: any free port (bind() says which)
  double request_timeout_s = 30;        // headers and body of a request from its first byte; and
                                        // writing its answer. Past it the connection is closed.
  double idle_timeout_s = 10;           // a keep-alive connection waiting for its next request
  int max_connections = 256;            // open connections; more are closed on accept
  int max_connections_per_client = 32;  // open connections from one client address
  uint64_t max_body_bytes = uint64_t{64} << 20;  // larger bodies are refused (413)
  uint32_t max_header_bytes = 16384;             // request line and headers; more is a 431
  std::function<void(int socket)> on_accept;     // test hook: each accepted socket, once set up
};

struct HttpRequest {
  std::string method;
  std::string path;                               // the target before any '?'
  std::multimap<std::string, std::string> query;  // its parameters, percent-decoded
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::steady_clock::time_point start;  // when its headers were read
  // The first header called `name` (any case), or "".
  std::string header(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // more headers (Retry-After, ...)
};

// What answers requests. The transport calls it on its network thread, so every call must
// return soon; heavy work goes to other threads, which then call `answer`.
class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // Once the headers are read (body still empty): an answer refuses the request without reading
  // its body, and the connection is closed after it.
  virtual std::optional<HttpResponse> check_headers(const HttpRequest& request) = 0;
  // The whole request. `answer` must be called exactly once, from any thread.
  virtual void handle(HttpRequest request, std::function<void(HttpResponse)> answer) = 0;
  // The answer to a request the transport refuses itself (malformed, too large).
  virtual HttpResponse error(int status, const std::string& message) = 0;
  // Every answer once sent (or its sending failed): for logs and metrics. A request refused
  // before its request line was read has method and path "-".
  virtual void answered(const HttpRequest& request, int status, double seconds) = 0;
  // A connection closed on accept by a connection limit.
  virtual void connection_refused() {}
};

class HttpTransport {
 public:
  HttpTransport(const TransportOptions& options, HttpHandler& handler);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Binds options.host:options.port and returns the port; an Error when it cannot.
  int bind();
  // Serves on the calling thread until stop(), then returns once the requests being answered
  // are answered and written.
  void run();
  // Stops accepting, closes connections that wait for or are sending a request, and makes
  // run() return after the answers in flight. From any thread but a signal handler, before or
  // during run(); more calls do nothing.
  void stop();
  // Connections open now (for tests and metrics).
  int open_connections() const;

  struct State;  // the Asio side (http_transport.cc)

 private:
  std::shared_ptr<State> state_;
};

}  // namespace graphcost::serve
