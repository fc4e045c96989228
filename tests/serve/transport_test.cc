// serve::HttpTransport in-process, with a stub handler: TCP_NODELAY on every accepted socket
// (seen through the on_accept hook), stop() returning promptly with slow clients connected, and
// an answer in flight still written after stop(). Loopback, a free port, bounded waits.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "raw_connection.h"
#include "serve/http_transport.h"

namespace graphcost::serve {
namespace {

using graphcost::testing::RawConnection;
using std::chrono::milliseconds;

// Answers every request with 200 "ok", after `delay` on a thread of its own.
class StubHandler : public HttpHandler {
 public:
  explicit StubHandler(milliseconds delay = milliseconds(0)) : delay_(delay) {}
  ~StubHandler() override {
    for (std::thread& thread : answering_) thread.join();
  }
  std::optional<HttpResponse> check_headers(const HttpRequest&) override { return std::nullopt; }
  void handle(HttpRequest, std::function<void(HttpResponse)> answer) override {
    handled_ = true;
    answering_.emplace_back([this, answer] {
      std::this_thread::sleep_for(delay_);
      HttpResponse response;
      response.content_type = "text/plain";
      response.body = "ok";
      answer(response);
    });
  }
  HttpResponse error(int status, const std::string& message) override {
    HttpResponse response;
    response.status = status;
    response.body = message;
    return response;
  }
  void answered(const HttpRequest&, int, double) override {}
  std::atomic<bool> handled_{false};

 private:
  milliseconds delay_;
  std::vector<std::thread> answering_;
};

// A transport on a free loopback port, serving on a thread of its own.
struct RunningTransport {
  RunningTransport(const TransportOptions& options, HttpHandler& handler)
      : transport(options, handler) {
    port = transport.bind();
    done = std::async(std::launch::async, [this] { transport.run(); });
  }
  ~RunningTransport() {
    transport.stop();
    done.wait_for(std::chrono::seconds(10));
  }
  HttpTransport transport;
  int port = 0;
  std::future<void> done;
};

TransportOptions loopback() {
  TransportOptions options;
  options.port = 0;
  return options;
}

TEST(HttpTransport, SetsTcpNoDelayOnAcceptedSockets) {
  StubHandler handler;
  TransportOptions options = loopback();
  std::promise<int> no_delay;
  options.on_accept = [&no_delay](int socket) {
    int value = -1;
    socklen_t size = sizeof value;
    ::getsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &value, &size);
    no_delay.set_value(value);
  };
  RunningTransport running(options, handler);
  RawConnection connection(running.port);
  ASSERT_TRUE(connection.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::future<int> seen = no_delay.get_future();
  ASSERT_EQ(seen.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(seen.get(), 1);
  EXPECT_NE(connection.read_until("ok", milliseconds(5000)).find("200 OK"), std::string::npos);
}

TEST(HttpTransport, StopReturnsPromptlyWithSlowClientsConnected) {
  StubHandler handler;
  RunningTransport running(loopback(), handler);
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 30; ++i) {
    slow.push_back(std::make_unique<RawConnection>(running.port));
    ASSERT_TRUE(slow.back()->send(i % 2 ? "GET /x HTTP/1.1\r\nX-Slow: " : ""));
  }
  RawConnection probe(running.port);
  ASSERT_TRUE(probe.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_NE(probe.read_until("ok", milliseconds(5000)).find("200 OK"), std::string::npos);
  EXPECT_EQ(running.transport.open_connections(), 31);
  const auto start = std::chrono::steady_clock::now();
  running.transport.stop();
  ASSERT_EQ(running.done.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_EQ(running.transport.open_connections(), 0);
  for (auto& connection : slow) EXPECT_TRUE(connection->closed_by_peer(milliseconds(1000)));
}

TEST(HttpTransport, AnswerInFlightIsWrittenAfterStop) {
  StubHandler handler(milliseconds(500));
  RunningTransport running(loopback(), handler);
  RawConnection connection(running.port);
  ASSERT_TRUE(connection.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n"));
  for (int i = 0; i < 500 && !handler.handled_; ++i) std::this_thread::sleep_for(milliseconds(2));
  ASSERT_TRUE(handler.handled_);
  running.transport.stop();
  bool closed = false;
  const std::string answer = connection.read_until_closed(milliseconds(5000), &closed);
  EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_TRUE(closed);
  EXPECT_EQ(running.done.wait_for(std::chrono::seconds(5)), std::future_status::ready);
}

}  // namespace
}  // namespace graphcost::serve
