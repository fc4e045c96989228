// graphcost serve against a hostile client (issue #40): connections that trickle header bytes,
// a whole-request deadline, connection limits, a gzip bomb, graphs over the node and edge
// limits, a request smuggled in a refused body, strict JSON, two Content-Length headers and the
// bearer scheme in lower case. Each test checks the exact answer; waits are bounded.
#include <gtest/gtest.h>
#include <httplib.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compressed.h"
#include "raw_connection.h"
#include "serve_fixture.h"

namespace {

using graphcost::read_file;
using graphcost::testing::RawConnection;
using graphcost::testing::ServeProcess;
using graphcost::testing::ServeTest;
using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

std::string gzip(const std::string& text) { return graphcost::testing::compressed(text, 31); }

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The status of an HTTP answer's first line ("HTTP/1.1 401 ..."), or 0.
int status_of(const std::string& answer) {
  if (answer.compare(0, 5, "HTTP/") != 0 || answer.size() < 12) return 0;
  return std::stoi(answer.substr(9, 3));
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

class HardeningTest : public ServeTest {
 protected:
  // `graphcost serve` of the tile model with more flags, its log named after the test.
  static void start_tile_server(ServeProcess& server, const std::string& flags) {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string message;
    ASSERT_TRUE(server.start("--model tile=" + tile_.run_dir + " " + flags,
                             (root_ / (name + ".log")).string(), &message))
        << message;
  }
  static std::string token_file() {
    const std::string path = (root_ / "hardening_token").string();
    std::ofstream(path) << kToken << "\n";
    return path;
  }
  static constexpr const char* kToken = "hardening-token-1";
};

// Item 1: 100 connections that send a header line every 200 ms hold no thread: /healthz answers
// every probe at once, and SIGTERM ends the process promptly.
TEST_F(HardeningTest, SlowClientsNeitherStarveHealthzNorDelayStop) {
  ServeProcess server;
  start_tile_server(server, "--max-connections 300 --max-connections-per-client 200");
  constexpr int kSlowClients = 100;
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < kSlowClients; ++i) {
    slow.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(slow.back()->connected());
    ASSERT_TRUE(slow.back()->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  }
  std::atomic<bool> trickling{true};
  std::thread trickler([&] {
    for (int round = 0; round < 150 && trickling; ++round) {  // at most 30 s
      for (auto& connection : slow) connection->send("X-Slow: 1\r\n");
      std::this_thread::sleep_for(milliseconds(200));
    }
  });
  std::this_thread::sleep_for(milliseconds(500));  // every slow client has trickled
  int answered = 0;
  for (int probe = 0; probe < 5; ++probe) {
    httplib::Client client("127.0.0.1", server.port());
    client.set_connection_timeout(2);
    client.set_read_timeout(2);
    auto res = client.Get("/healthz");
    if (res && res->status == 200) ++answered;
  }
  EXPECT_EQ(answered, 5);
  const Clock::time_point stop = Clock::now();
  server.terminate();
  EXPECT_EQ(server.wait(std::chrono::seconds(20)), 0);
  const double stop_seconds = seconds_since(stop);
  trickling = false;
  trickler.join();
  EXPECT_LT(stop_seconds, 3.0) << "SIGTERM took " << stop_seconds << " s with slow clients";
}

// Item 1: --request-timeout-s bounds a request's headers and body together, however slowly
// they trickle; --idle-timeout-s a connection that sends nothing.
TEST_F(HardeningTest, RequestDeadlineCoversTrickledHeadersAndBody) {
  ServeProcess server;
  start_tile_server(server, "--request-timeout-s 2 --idle-timeout-s 1");
  RawConnection headers(server.port()), body(server.port()), idle(server.port());
  ASSERT_TRUE(headers.send("GET /healthz HTTP/1.1\r\n"));
  ASSERT_TRUE(
      body.send("POST /v1/models/tile/rank HTTP/1.1\r\nContent-Type: application/json\r\n"
                "Content-Length: 1000\r\n\r\n"));
  const Clock::time_point start = Clock::now();
  double headers_closed = 0, body_closed = 0, idle_closed = 0;
  for (int round = 0; round < 40 && (!headers_closed || !body_closed || !idle_closed); ++round) {
    if (!headers_closed &&
        (!headers.send("X-Slow: 1\r\n") || headers.closed_by_peer(milliseconds(0))))
      headers_closed = seconds_since(start);
    if (!body_closed && (!body.send(" ") || body.closed_by_peer(milliseconds(0))))
      body_closed = seconds_since(start);
    if (!idle_closed && idle.closed_by_peer(milliseconds(0))) idle_closed = seconds_since(start);
    std::this_thread::sleep_for(milliseconds(200));  // 40 rounds: at most 8 s
  }
  EXPECT_GT(headers_closed, 1.5);
  EXPECT_LT(headers_closed, 4.0);
  EXPECT_GT(body_closed, 1.5);
  EXPECT_LT(body_closed, 4.0);
  EXPECT_GT(idle_closed, 0.5);
  EXPECT_LT(idle_closed, 3.0);
  EXPECT_EQ(httplib::Client("127.0.0.1", server.port()).Get("/healthz")->status, 200);
}

// Item 1: a client address may hold --max-connections-per-client connections, and all clients
// --max-connections; one more is closed on accept, unanswered, and counted.
TEST_F(HardeningTest, ConnectionLimitsCloseTheConnectionOverTheLimit) {
  for (const std::string flags : {"--max-connections-per-client 3", "--max-connections 3"}) {
    SCOPED_TRACE(flags);
    ServeProcess server;
    start_tile_server(server, flags);
    std::vector<std::unique_ptr<RawConnection>> held;
    for (int i = 0; i < 3; ++i) {  // each answered once, so the server holds all three
      held.push_back(std::make_unique<RawConnection>(server.port()));
      ASSERT_TRUE(held.back()->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
      ASSERT_EQ(status_of(held.back()->read_until("\"ok\"}", milliseconds(5000))), 200);
    }
    RawConnection over(server.port());
    over.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    bool closed = false;
    EXPECT_EQ(over.read_until_closed(milliseconds(5000), &closed), "");
    EXPECT_TRUE(closed);
    held.pop_back();  // a slot frees once the server sees the close
    int status = 0;
    for (int attempt = 0; attempt < 50 && status != 200; ++attempt) {
      RawConnection again(server.port());
      again.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      bool again_closed = false;
      const std::string text = again.read_until_closed(milliseconds(5000), &again_closed);
      status = status_of(text);
      if (status == 200) {
        EXPECT_NE(text.find("\ngraphcost_serve_connections_refused_total " +
                            std::to_string(1 + attempt) + "\n"),
                  std::string::npos)
            << text;
      }
      if (status != 200) std::this_thread::sleep_for(milliseconds(100));
    }
    EXPECT_EQ(status, 200);
  }
}

// Item 2: a compressed body is inflated no further than --max-body-mb (8 MiB here): a 64 MiB
// gzip bomb of ~64 KB is refused with 413; a gzip-encoded request within the limit is ranked;
// an unknown coding is a 415.
TEST_F(HardeningTest, GzipBodiesAreBoundedByTheBodyLimit) {
  const std::string bomb = gzip("{\"name\": \"" + std::string(64 << 20, 'a') + "\"}");
  ASSERT_LT(bomb.size(), 1u << 20);
  const std::string path = "/v1/models/tile/rank";
  auto refused =
      client().Post(path.c_str(), {{"Content-Encoding", "gzip"}}, bomb, "application/json");
  ASSERT_TRUE(refused) << httplib::to_string(refused.error());
  EXPECT_EQ(refused->status, 413) << refused->body;
  EXPECT_NE(refused->body.find("larger than --max-body-mb 8 MiB once decompressed"),
            std::string::npos)
      << refused->body;
  expect_predict_ranking(tile_, client().Post(path.c_str(), {{"Content-Encoding", "gzip"}},
                                              gzip(tile_.request.dump()), "application/json"));
  auto unknown = client().Post(path.c_str(), {{"Content-Encoding", "br"}}, tile_.request.dump(),
                               "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 415) << unknown->body;
  EXPECT_NE(unknown->body.find("Content-Encoding 'br' not supported"), std::string::npos);
}

// Item 3: --max-nodes and --max-edges refuse a larger graph with 413 before it is scored, as
// JSON and as .npz.
TEST_F(HardeningTest, GraphsOverTheNodeOrEdgeLimitAreRefused) {
  const int64_t nodes = static_cast<int64_t>(tile_.request.at("node_opcode").size());
  const int64_t edges = static_cast<int64_t>(tile_.request.at("edge_index").size());
  ASSERT_GT(edges, 0);
  ServeProcess server;
  start_tile_server(
      server, "--max-nodes " + std::to_string(nodes) + " --max-edges " + std::to_string(edges - 1));
  httplib::Client c("127.0.0.1", server.port());
  const std::string edge_message = "request: " + std::to_string(edges) +
                                   " edges, more than --max-edges " + std::to_string(edges - 1);
  auto too_many_edges = c.Post("/v1/models/tile/rank", tile_.request.dump(), "application/json");
  ASSERT_TRUE(too_many_edges);
  EXPECT_EQ(too_many_edges->status, 413);
  EXPECT_NE(too_many_edges->body.find(edge_message), std::string::npos) << too_many_edges->body;
  auto npz = c.Post("/v1/models/tile/rank", read_file(tile_.file), "application/octet-stream");
  ASSERT_TRUE(npz);
  EXPECT_EQ(npz->status, 413);
  EXPECT_NE(npz->body.find(edge_message), std::string::npos) << npz->body;
  json bigger = tile_.request;
  bigger["node_feat"].push_back(bigger["node_feat"][0]);
  bigger["node_opcode"].push_back(bigger["node_opcode"][0]);
  auto too_many_nodes = c.Post("/v1/models/tile/rank", bigger.dump(), "application/json");
  ASSERT_TRUE(too_many_nodes);
  EXPECT_EQ(too_many_nodes->status, 413);
  EXPECT_NE(too_many_nodes->body.find("request: " + std::to_string(nodes + 1) +
                                      " nodes, more than --max-nodes " + std::to_string(nodes)),
            std::string::npos)
      << too_many_nodes->body;
}

// Item 4: a request refused from its headers (401, 404) is answered and the connection closed:
// its unread body, here a second request, is never taken for one.
TEST_F(HardeningTest, BodyOfARefusedRequestIsNeverServedAsARequest) {
  ServeProcess secured;
  start_tile_server(secured, "--token-file " + token_file());
  const std::string smuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  const auto headers = [&](const std::string& path) {
    return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
           "Content-Length: " + std::to_string(smuggled.size()) + "\r\n\r\n";
  };
  struct Case {
    int port;
    std::string path;
    int status;
  };
  for (const Case& c : {Case{secured.port(), "/v1/models/tile/rank", 401},
                        Case{server_->port(), "/v1/models/nope/rank", 404}}) {
    SCOPED_TRACE(c.path);
    RawConnection connection(c.port);
    ASSERT_TRUE(connection.send(headers(c.path)));
    // The body comes once the refusal is on its way, as a client that does not wait for it
    // would send it.
    std::this_thread::sleep_for(milliseconds(300));
    connection.send(smuggled);
    bool closed = false;
    const std::string answer = connection.read_until_closed(milliseconds(10000), &closed);
    EXPECT_TRUE(closed);
    EXPECT_EQ(status_of(answer), c.status) << answer;
    EXPECT_EQ(count_of(answer, "HTTP/1.1 "), 1u) << answer;
  }
}

// Item 5: strict JSON: a number beyond double's range and a repeated field are the client's
// errors (400 naming them), not a 500 or a silently dropped value.
TEST_F(HardeningTest, OverflowingNumbersAndDuplicateFieldsAre400) {
  auto overflow = rank_json("tile", R"({"node_feat": [[1e999]]})");
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->status, 400) << overflow->body;
  EXPECT_NE(overflow->body.find("number overflow parsing '1e999'"), std::string::npos)
      << overflow->body;
  std::string duplicate = tile_.request.dump();
  duplicate.insert(duplicate.rfind('}'), R"(, "seed": 1, "seed": 2)");
  auto repeated = rank_json("tile", duplicate);
  ASSERT_TRUE(repeated);
  EXPECT_EQ(repeated->status, 400) << repeated->body;
  EXPECT_NE(repeated->body.find("field 'seed' given twice"), std::string::npos) << repeated->body;
  expect_still_serving();
}

// Item 5: exactly one Content-Length: two (different or equal) are a 400, then the connection
// closes.
TEST_F(HardeningTest, TwoContentLengthHeadersAre400) {
  const std::string body = tile_.request.dump() + " ";
  const size_t length = body.size();
  for (const size_t second : {length - 1, length}) {
    SCOPED_TRACE(second);
    RawConnection connection(server_->port());
    ASSERT_TRUE(connection.send(
        "POST /v1/models/tile/rank HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(second) + "\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n" +
        body));
    bool closed = false;
    const std::string answer = connection.read_until_closed(milliseconds(10000), &closed);
    EXPECT_EQ(status_of(answer), 400) << answer;
    EXPECT_NE(answer.find("Content-Length"), std::string::npos) << answer;
    EXPECT_TRUE(closed);
  }
}

// Item 5: the bearer scheme is case-insensitive (RFC 9110): "bearer" and "BEARER" are let in.
TEST_F(HardeningTest, BearerSchemeInAnyCaseIsAccepted) {
  ServeProcess secured;
  start_tile_server(secured, "--token-file " + token_file());
  httplib::Client c("127.0.0.1", secured.port());
  for (const std::string scheme : {"bearer", "BEARER", "Bearer"}) {
    auto res = c.Get("/v1/models", {{"Authorization", scheme + " " + kToken}});
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << scheme;
  }
  EXPECT_EQ(c.Get("/v1/models", {{"Authorization", std::string("bearer x") + kToken}})->status,
            401);
}

}  // namespace
