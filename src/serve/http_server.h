// The HTTP layer (cpp-httplib): routes, the JSON error body, bearer authentication, request
// logs and metrics, the body and queue limits, and a stop that lets requests in flight finish.
//   GET  /healthz                  200 {"status": "ok"} while the process serves (no token needed)
//   GET  /readyz                   200 once the models are loaded, 503 while stopping
//   GET  /metrics                  Prometheus text (serve/metrics.h)
//   GET  /v1/models                the models and what they were trained on
//   POST /v1/models/{name}/rank    a graph's configurations ranked (serve/rank_request.h)
// See docs/serve.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "serve/auth.h"
#include "serve/metrics.h"
#include "serve/rank_request.h"
#include "serve/rank_service.h"
#include "serve/worker_pool.h"

namespace httplib {
class Server;
}

namespace graphcost::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;          // 0: any free port (bind() says which)
  int threads = 2;          // scoring workers
  int max_queue = 16;       // requests waiting for a worker before more are refused (503)
  int64_t max_body_mb = 64;  // request bodies above this many MiB are refused (413)
  RequestLimits limits;
  bool log_requests = true;  // one stderr line per request: method, endpoint, status, time
};

class RankServer {
 public:
  RankServer(RankService& service, const ServerOptions& options, BearerAuth auth);
  ~RankServer();

  // Binds options.host:options.port and returns the port; an Error when it cannot.
  int bind();
  // Serves until stop(), then returns once the requests in flight are answered.
  void listen();
  // Refuses new connections and ends listen() after the requests in flight; from any thread
  // but a signal handler, before or after listen() started.
  void stop();

 private:
  void add_routes();
  void handle_rank(const std::string& model, const std::string& content_type,
                   const std::string& body, const std::multimap<std::string, std::string>& query,
                   std::string& response_body);

  RankService& service_;
  ServerOptions options_;
  BearerAuth auth_;
  Metrics metrics_;
  WorkerPool pool_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> listen_ended_{false};
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace graphcost::serve
