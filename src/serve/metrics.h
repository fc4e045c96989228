// The service's counters in the Prometheus text exposition format (version 0.0.4): requests by
// endpoint and status, a latency histogram by endpoint, configurations scored, and errors by
// class. Thread-safe; written by hand (Debian packages no Prometheus client for C++), and small.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace graphcost::serve {

class Metrics {
 public:
  Metrics();
  // One answered request: its endpoint (a route pattern such as "/v1/models/{name}/rank", never
  // the raw path), HTTP status and seconds from the start of routing to the response.
  void observe_request(const std::string& endpoint, int status, double seconds);
  void add_configurations_scored(int64_t count);
  // A connection closed on accept by --max-connections or --max-connections-per-client.
  void add_connection_refused();
  // The whole exposition: graphcost_serve_requests_total{endpoint,status},
  // graphcost_serve_request_duration_seconds{endpoint} (histogram),
  // graphcost_serve_configurations_scored_total, graphcost_serve_errors_total{class}
  // (class "client" for 4xx, "server" for 5xx), graphcost_serve_connections_refused_total.
  std::string prometheus_text() const;

 private:
  struct Histogram {
    std::vector<uint64_t> counts;  // per bucket, not cumulative; the last is +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  const std::vector<std::string> bucket_labels_;  // the bounds as the le label writes them
  const std::vector<double> bucket_bounds_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, Histogram> latency_;
  uint64_t configurations_scored_ = 0;
  uint64_t client_errors_ = 0;
  uint64_t server_errors_ = 0;
  uint64_t connections_refused_ = 0;
};

}  // namespace graphcost::serve
