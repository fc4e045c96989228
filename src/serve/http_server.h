// The HTTP layer: routes, the JSON error body, bearer authentication, request logs and metrics,
// the scoring queue, on the event-driven transport of serve/http_transport.h.
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
#include <optional>
#include <string>

#include "serve/auth.h"
#include "serve/http_transport.h"
#include "serve/metrics.h"
#include "serve/rank_request.h"
#include "serve/rank_service.h"
#include "serve/worker_pool.h"

namespace graphcost::serve {

struct ServerOptions {
  int threads = 2;             // scoring workers
  int max_queue = 16;          // requests waiting for a worker before more are refused (503)
  int64_t max_body_mb = 64;    // request bodies above this many MiB, sent or decompressed: 413
  TransportOptions transport;  // address, timeouts, connection limits (its body limit is set
                               // from max_body_mb)
  RequestLimits limits;
  bool log_requests = true;  // one stderr line per request: method, endpoint, status, time
};

class RankServer : private HttpHandler {
 public:
  RankServer(RankService& service, const ServerOptions& options, BearerAuth auth);
  ~RankServer() override;

  // Binds options.host:options.port and returns the port; an Error when it cannot.
  int bind();
  // Serves until stop(), then returns once the requests in flight and those queued are answered.
  void listen();
  // Refuses new connections, closes idle and half-received ones, and ends listen() after the
  // requests in flight; from any thread but a signal handler, before or after listen() started.
  void stop();

 private:
  std::optional<HttpResponse> check_headers(const HttpRequest& request) override;
  void handle(HttpRequest request, std::function<void(HttpResponse)> answer) override;
  HttpResponse error(int status, const std::string& message) override;
  void answered(const HttpRequest& request, int status, double seconds) override;
  void connection_refused() override;

  // Queues a rank request on the workers; false when the queue is full.
  bool queue_rank(const std::string& model, HttpRequest request,
                  const std::function<void(HttpResponse)>& answer);

  RankService& service_;
  ServerOptions options_;
  BearerAuth auth_;
  Metrics metrics_;
  WorkerPool pool_;
  std::atomic<bool> stopping_{false};
  HttpTransport transport_;
};

}  // namespace graphcost::serve
