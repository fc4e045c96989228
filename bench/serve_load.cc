// Load client for graphcost serve: C concurrent clients (keep-alive connections) post the same
// rank request for T seconds; prints requests/s, configurations/s, p50/p99 latency and errors
// as `figure: <label>_...` lines. Loopback only (127.0.0.1).
//   serve_load --port P --model NAME --npz FILE [--json] [--clients C] [--seconds T] --label L
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/atomic_file.h"
#include "serve/request_json.h"

namespace {

struct Options {
  int port = 0;
  std::string model, npz, label;
  bool json = false;
  int clients = 4;
  double seconds = 5;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "serve_load: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (a == "--port") o.port = std::atoi(next().c_str());
    else if (a == "--model") o.model = next();
    else if (a == "--npz") o.npz = next();
    else if (a == "--label") o.label = next();
    else if (a == "--json") o.json = true;
    else if (a == "--clients") o.clients = std::atoi(next().c_str());
    else if (a == "--seconds") o.seconds = std::atof(next().c_str());
    else {
      std::fprintf(stderr, "serve_load: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  // Bounded so that a typo cannot start an unbounded load.
  if (o.port <= 0 || o.model.empty() || o.npz.empty() || o.label.empty() || o.clients < 1 ||
      o.clients > 64 || o.seconds <= 0 || o.seconds > 120) {
    std::fprintf(stderr, "serve_load: need --port, --model, --npz, --label; 1 <= --clients <= 64, "
                         "0 < --seconds <= 120\n");
    std::exit(2);
  }
  return o;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t at = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(at, values.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::string body = o.json ? graphcost::serve::npz_as_json_request(o.npz).dump()
                                  : graphcost::read_file(o.npz);
  const std::string type = o.json ? "application/json" : "application/octet-stream";
  const std::string path = "/v1/models/" + o.model + "/rank";
  std::mutex mutex;
  std::vector<double> latencies;
  int64_t configurations = 0, errors = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(o.seconds);
  std::vector<std::thread> clients;
  for (int c = 0; c < o.clients; ++c) {
    clients.emplace_back([&] {
      httplib::Client client("127.0.0.1", o.port);
      client.set_keep_alive(true);
      client.set_read_timeout(60);
      std::vector<double> mine;
      int64_t my_configurations = 0, my_errors = 0;
      while (std::chrono::steady_clock::now() < deadline) {
        const auto sent = std::chrono::steady_clock::now();
        auto res = client.Post(path.c_str(), body, type.c_str());
        mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count());
        if (!res || res->status != 200) {
          ++my_errors;
          continue;
        }
        my_configurations += nlohmann::json::parse(res->body).at("configurations").get<int64_t>();
      }
      std::lock_guard<std::mutex> lock(mutex);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
      configurations += my_configurations;
      errors += my_errors;
    });
  }
  for (std::thread& t : clients) t.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string& l = o.label;
  std::printf("figure: %s_requests_per_s: %.1f req/s\n", l.c_str(), latencies.size() / elapsed);
  std::printf("figure: %s_configs_per_s: %.0f configs/s\n", l.c_str(), configurations / elapsed);
  std::printf("figure: %s_p50_latency: %.2f ms\n", l.c_str(), 1e3 * percentile(latencies, 0.50));
  std::printf("figure: %s_p99_latency: %.2f ms\n", l.c_str(), 1e3 * percentile(latencies, 0.99));
  std::printf("figure: %s_errors: %lld requests\n", l.c_str(), static_cast<long long>(errors));
  std::printf("figure: %s_body: %zu bytes\n", l.c_str(), body.size());
  return errors == 0 ? 0 : 1;
}
