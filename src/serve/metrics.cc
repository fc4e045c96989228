#include "serve/metrics.h"

#include <cstdio>

namespace graphcost::serve {

namespace {

// Prometheus numbers: shortest round-trip text, "+Inf" for infinity.
std::string number(double value) {
  char buffer[32];
  double back = 0;
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    std::sscanf(buffer, "%lf", &back);
    if (back == value) break;
  }
  return buffer;
}

std::vector<double> bounds_of(const std::vector<std::string>& labels) {
  std::vector<double> bounds;
  for (const std::string& label : labels) bounds.push_back(std::stod(label));
  return bounds;
}

}  // namespace

// From 1 ms (a cached small graph) to 10 s (a large layout graph at many configurations).
Metrics::Metrics()
    : bucket_labels_{"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
                     "0.25",  "0.5",    "1",     "2.5",  "5",     "10"},
      bucket_bounds_(bounds_of(bucket_labels_)) {}

void Metrics::observe_request(const std::string& endpoint, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, status}];
  Histogram& histogram = latency_[endpoint];
  if (histogram.counts.empty()) histogram.counts.assign(bucket_bounds_.size() + 1, 0);
  size_t bucket = 0;
  while (bucket < bucket_bounds_.size() && seconds > bucket_bounds_[bucket]) ++bucket;
  ++histogram.counts[bucket];
  histogram.sum += seconds;
  ++histogram.count;
  if (status >= 400 && status < 500) ++client_errors_;
  if (status >= 500) ++server_errors_;
}

void Metrics::add_configurations_scored(int64_t count) {
  std::lock_guard<std::mutex> lock(mutex_);
  configurations_scored_ += static_cast<uint64_t>(count);
}

void Metrics::add_connection_refused() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++connections_refused_;
}

std::string Metrics::prometheus_text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  out += "# HELP graphcost_serve_requests_total Requests answered, by endpoint and HTTP status.\n";
  out += "# TYPE graphcost_serve_requests_total counter\n";
  for (const auto& [key, count] : requests_) {
    out += "graphcost_serve_requests_total{endpoint=\"" + key.first + "\",status=\"" +
           std::to_string(key.second) + "\"} " + std::to_string(count) + "\n";
  }
  out += "# HELP graphcost_serve_request_duration_seconds Time from routing to response.\n";
  out += "# TYPE graphcost_serve_request_duration_seconds histogram\n";
  for (const auto& [endpoint, histogram] : latency_) {
    const std::string label = "endpoint=\"" + endpoint + "\"";
    uint64_t cumulative = 0;
    for (size_t b = 0; b < histogram.counts.size(); ++b) {
      cumulative += histogram.counts[b];
      const std::string bound = b < bucket_labels_.size() ? bucket_labels_[b] : "+Inf";
      out += "graphcost_serve_request_duration_seconds_bucket{" + label + ",le=\"" + bound +
             "\"} " + std::to_string(cumulative) + "\n";
    }
    out += "graphcost_serve_request_duration_seconds_sum{" + label + "} " + number(histogram.sum) +
           "\n";
    out += "graphcost_serve_request_duration_seconds_count{" + label + "} " +
           std::to_string(histogram.count) + "\n";
  }
  out += "# HELP graphcost_serve_configurations_scored_total Configurations ranked.\n";
  out += "# TYPE graphcost_serve_configurations_scored_total counter\n";
  out += "graphcost_serve_configurations_scored_total " + std::to_string(configurations_scored_) +
         "\n";
  out += "# HELP graphcost_serve_errors_total Requests answered with an error status.\n";
  out += "# TYPE graphcost_serve_errors_total counter\n";
  out += "graphcost_serve_errors_total{class=\"client\"} " + std::to_string(client_errors_) + "\n";
  out += "graphcost_serve_errors_total{class=\"server\"} " + std::to_string(server_errors_) + "\n";
  out += "# HELP graphcost_serve_connections_refused_total Connections closed on accept by a "
         "connection limit.\n";
  out += "# TYPE graphcost_serve_connections_refused_total counter\n";
  out += "graphcost_serve_connections_refused_total " + std::to_string(connections_refused_) +
         "\n";
  return out;
}

}  // namespace graphcost::serve
