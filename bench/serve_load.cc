// Load client for graphcost serve: C concurrent clients (keep-alive connections) post the same
// rank request for T seconds; prints requests/s, configurations/s, p50/p99 latency and errors
// as `figure: <label>_...` lines. Loopback only (127.0.0.1).
//   serve_load --port P --model NAME --npz FILE [--json] [--clients C] [--seconds T] --label L
//              [--slow-clients S]     meanwhile S connections trickle header lines, one a second
//                                     each (--clients 0: only hold them for T seconds)
//   serve_load --port P --get PATH [--clients C] [--seconds T] --label L
//                                     GET PATH instead (keep-alive latency, e.g. /healthz)
//   serve_load --port P --model NAME --npz FILE --grow-nodes N [--max-edges E] --label L
//                                     one .npz request: the file's graph copied side by side
//                                     up to N nodes (and at most E edges), same configurations
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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
#include "io/npz.h"
#include "serve/request_json.h"

namespace {

struct Options {
  int port = 0;
  std::string model, npz, label;
  std::string get;  // a path to GET instead of ranking
  bool json = false;
  int clients = 4;
  double seconds = 5;
  int slow_clients = 0;
  int64_t grow_nodes = 0;
  int64_t max_edges = 200000;
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
    else if (a == "--get") o.get = next();
    else if (a == "--slow-clients") o.slow_clients = std::atoi(next().c_str());
    else if (a == "--grow-nodes") o.grow_nodes = std::atoll(next().c_str());
    else if (a == "--max-edges") o.max_edges = std::atoll(next().c_str());
    else {
      std::fprintf(stderr, "serve_load: unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  // Bounded so that a typo cannot start an unbounded load.
  if (o.port <= 0 || (o.get.empty() && (o.model.empty() || o.npz.empty())) || o.label.empty() ||
      o.clients < 0 ||
      (o.clients == 0 && o.slow_clients == 0) || o.clients > 64 || o.seconds <= 0 ||
      o.seconds > 120 || o.slow_clients < 0 || o.slow_clients > 1000 || o.grow_nodes < 0 ||
      o.grow_nodes > 10000000 || o.max_edges < 0) {
    std::fprintf(stderr, "serve_load: need --port, --label and --model with --npz, or --get; "
                         "0 <= --clients <= 64 (0 only with --slow-clients), 0 < --seconds <= 120, "
                         "0 <= --slow-clients <= 1000, 0 <= --grow-nodes <= 10^7\n");
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

// Connections that send a request's headers a line at a time, one line a second each, until
// stop(): clients that hold a connection as long as the server lets them.
class SlowClients {
 public:
  SlowClients(int port, int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(static_cast<uint16_t>(port));
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        std::fprintf(stderr, "serve_load: slow client %d cannot connect\n", i);
        if (fd >= 0) ::close(fd);
        continue;
      }
      send(fd, "GET /healthz HTTP/1.1\r\n");
      fds_.push_back(fd);
    }
    trickler_ = std::thread([this] {
      while (!stopping_) {
        for (int fd : fds_) send(fd, "X-Slow: 1\r\n");
        for (int i = 0; i < 10 && !stopping_; ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  ~SlowClients() {
    stopping_ = true;
    trickler_.join();
    for (int fd : fds_) ::close(fd);
  }
  int connected() const { return static_cast<int>(fds_.size()); }

 private:
  static void send(int fd, const std::string& text) {
    [[maybe_unused]] const ssize_t sent = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
  }
  std::vector<int> fds_;
  std::atomic<bool> stopping_{false};
  std::thread trickler_;
};

// The rows of a [n, ...] array repeated cyclically to `rows` rows.
graphcost::io::NpyArray repeat_rows(const graphcost::io::NpyArray& array, int64_t rows) {
  graphcost::io::NpyArray out = array;
  const size_t row_bytes = array.data.size() / static_cast<size_t>(array.shape[0]);
  out.shape[0] = rows;
  out.data.resize(row_bytes * static_cast<size_t>(rows));
  for (int64_t r = array.shape[0]; r < rows; ++r)
    std::copy_n(array.data.begin() + static_cast<std::ptrdiff_t>(row_bytes * (r % array.shape[0])),
                row_bytes, out.data.begin() + static_cast<std::ptrdiff_t>(row_bytes * r));
  return out;
}

// The .npz file's graph copied side by side up to `nodes` nodes, each copy's edges shifted to
// it (at most max_edges in all); the configurations (and configurable nodes) stay the first
// copy's. The bytes of the new .npz.
std::string grown_npz(const std::string& path, int64_t nodes, int64_t max_edges, int64_t* edges) {
  const graphcost::io::NpzReader npz(path);
  const std::string out_path = path + ".grown.npz";
  graphcost::io::NpzWriter writer(out_path, true);
  const int64_t original = npz.read("node_opcode").shape.at(0);
  for (const std::string& key : npz.keys()) {
    graphcost::io::NpyArray array = npz.read(key);
    if (key == "node_feat" || key == "node_opcode") {
      array = repeat_rows(array, nodes);
    } else if (key == "edge_index") {
      const std::vector<int64_t> pairs = array.to_vector<int64_t>(key);
      std::vector<int64_t> grown;
      for (int64_t shift = 0; shift + original <= nodes; shift += original) {
        for (size_t i = 0; i + 1 < pairs.size() && static_cast<int64_t>(grown.size()) < 2 * max_edges; i += 2) {
          grown.push_back(pairs[i] + shift);
          grown.push_back(pairs[i + 1] + shift);
        }
      }
      *edges = static_cast<int64_t>(grown.size() / 2);
      array = graphcost::io::make_array(grown, {*edges, 2});
    } else if (key == "node_splits") {
      continue;  // optional; the copies need none
    }
    writer.add(key, array);
  }
  writer.commit();
  std::string bytes = graphcost::read_file(out_path);
  std::remove(out_path.c_str());
  return bytes;
}

// --grow-nodes: one request with the grown graph; its status and time.
int post_grown_graph(const Options& o) {
  int64_t edges = 0;
  const std::string body = grown_npz(o.npz, o.grow_nodes, o.max_edges, &edges);
  httplib::Client client("127.0.0.1", o.port);
  client.set_read_timeout(600);
  const auto sent = std::chrono::steady_clock::now();
  auto res = client.Post(("/v1/models/" + o.model + "/rank").c_str(), body,
                         "application/octet-stream");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  const std::string& l = o.label;
  std::printf("figure: %s_nodes: %lld nodes\n", l.c_str(), static_cast<long long>(o.grow_nodes));
  std::printf("figure: %s_edges: %lld edges\n", l.c_str(), static_cast<long long>(edges));
  std::printf("figure: %s_body: %zu bytes\n", l.c_str(), body.size());
  std::printf("figure: %s_status: %d status\n", l.c_str(), res ? res->status : -1);
  std::printf("figure: %s_latency: %.2f s\n", l.c_str(), seconds);
  if (res && res->status == 200)
    std::printf("figure: %s_configurations: %lld configs\n", l.c_str(),
                static_cast<long long>(nlohmann::json::parse(res->body).at("configurations").get<int64_t>()));
  else if (res)
    std::fprintf(stderr, "serve_load: %s\n", res->body.c_str());
  return res && res->status == 200 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.grow_nodes > 0) return post_grown_graph(o);
  const SlowClients slow(o.port, o.slow_clients);
  if (o.slow_clients > 0)
    std::printf("figure: %s_slow_clients: %d connections\n", o.label.c_str(), slow.connected());
  if (o.clients == 0) {  // only hold the slow clients
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    return 0;
  }
  const std::string body = !o.get.empty() ? ""
                           : o.json       ? graphcost::serve::npz_as_json_request(o.npz).dump()
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
        auto res = o.get.empty() ? client.Post(path.c_str(), body, type.c_str())
                                 : client.Get(o.get.c_str());
        mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count());
        if (!res || res->status != 200) {
          ++my_errors;
          continue;
        }
        if (o.get.empty())
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
  std::printf("figure: %s_answers: %zu requests\n", l.c_str(), latencies.size() - static_cast<size_t>(errors));
  std::printf("figure: %s_errors: %lld requests\n", l.c_str(), static_cast<long long>(errors));
  std::printf("figure: %s_body: %zu bytes\n", l.c_str(), body.size());
  return errors == 0 ? 0 : 1;
}
