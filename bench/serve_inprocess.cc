// The scoring graphcost serve does per request, without HTTP: W threads (set up as the
// server's workers are) each read the .npz bytes into a request and rank it through
// serve::RankService, for T seconds. serve_load.sh divides the two rates: the HTTP overhead.
//   serve_inprocess --model RUN_DIR --npz FILE --threads W --seconds T --label L
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/atomic_file.h"
#include "core/progress.h"
#include "model/kernels/threads.h"
#include "serve/rank_request.h"
#include "serve/rank_service.h"

int main(int argc, char** argv) {
  std::string run_dir, npz, label;
  int threads = 2;
  double seconds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--model") run_dir = v;
    else if (a == "--npz") npz = v;
    else if (a == "--label") label = v;
    else if (a == "--threads") threads = std::atoi(v.c_str());
    else if (a == "--seconds") seconds = std::atof(v.c_str());
  }
  if (run_dir.empty() || npz.empty() || label.empty() || threads < 1 || threads > 64 ||
      seconds <= 0 || seconds > 120) {
    std::fprintf(stderr, "serve_inprocess: need --model, --npz, --label; 1 <= --threads <= 64, "
                         "0 < --seconds <= 120\n");
    return 2;
  }
  graphcost::show_progress_lines(false);
  graphcost::model::set_threads(0);  // as graphcost serve
  graphcost::serve::RankService service({{"m", run_dir}});
  const std::string bytes = graphcost::read_file(npz);
  const graphcost::serve::RequestLimits limits;
  std::mutex mutex;
  std::vector<double> latencies;
  int64_t configurations = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&] {
      graphcost::serve::configure_scoring_thread(1);  // as the server's workers
      std::vector<double> mine;
      int64_t my_configurations = 0;
      while (std::chrono::steady_clock::now() < deadline) {
        const auto begin = std::chrono::steady_clock::now();
        const auto ranking =
            service.rank("m", graphcost::serve::parse_npz_rank_request(bytes, {}, limits));
        mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
        my_configurations += static_cast<int64_t>(ranking.scores.size());
      }
      std::lock_guard<std::mutex> lock(mutex);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
      configurations += my_configurations;
    });
  }
  for (std::thread& t : workers) t.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(latencies.begin(), latencies.end());
  auto at = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[static_cast<size_t>(p * (latencies.size() - 1) + 0.5)];
  };
  std::printf("figure: %s_requests_per_s: %.1f req/s\n", label.c_str(), latencies.size() / elapsed);
  std::printf("figure: %s_configs_per_s: %.0f configs/s\n", label.c_str(), configurations / elapsed);
  std::printf("figure: %s_p50_latency: %.2f ms\n", label.c_str(), 1e3 * at(0.5));
  std::printf("figure: %s_p99_latency: %.2f ms\n", label.c_str(), 1e3 * at(0.99));
  return 0;
}
