// Speed of the default ranker on a large layout graph: training and inference throughput in
// configurations per second and peak memory, with 2 threads.
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "bench_graphs.h"
#include "data/configs.h"
#include "data/graph.h"
#include "model/forward/config_reach.h"
#include "model/forward/graph_tensors.h"
#include "model/forward/ranker.h"
#include "model/kernels/threads.h"

namespace {

using namespace graphcost;
using bench::random_layouts;
using bench::random_slate;
using bench::random_xla_like_graph;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Runs step() until at least min_seconds have passed (and at least 3 times); returns steps/s.
template <typename Step>
double rate(Step step, double min_seconds) {
  step();  // warm-up
  const auto start = std::chrono::steady_clock::now();
  int64_t steps = 0;
  while (steps < 3 || seconds_since(start) < min_seconds) {
    step();
    ++steps;
  }
  return static_cast<double>(steps) / seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  const double min_seconds = argc > 1 ? std::stod(argv[1]) : 10.0;
  // Keep freed tensor memory in the process: glibc would otherwise return every large block to
  // the kernel and fault it back in zeroed on the next step.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  model::set_threads(2);
  const data::Graph graph = random_xla_like_graph(10000, 140, 0.05, 1);
  const model::GraphTensors tensors = model::make_graph_tensors(graph);
  const data::ConfigTable table =
      random_layouts(1000, static_cast<int64_t>(graph.configurable_nodes.size()), 18, 2);
  torch::manual_seed(0);
  model::Ranker ranker(model::ModelOptions{});
  std::printf("figure: model_parameters: %lld count\n",
              static_cast<long long>(ranker->parameter_count()));
  std::printf("figure: bench_graph_operands_per_node: %.3f mean\n",
              static_cast<double>(graph.num_edges()) / graph.num_nodes);
  const model::ConfigReachPlan plan = model::plan_config_reach(
      tensors, static_cast<int64_t>(ranker->options().hidden.size()), false);
  for (size_t l = 0; l + 1 < plan.reach.size(); ++l) {
    std::printf("figure: nodes_within_%zu_hops_of_configurable: %.3f fraction\n", l,
                static_cast<double>(plan.reach[l]) / graph.num_nodes);
  }
  std::mt19937 rng(3);

  ranker->eval();
  auto infer_step = [&](bool dense) {
    torch::NoGradGuard no_grad;
    model::Slate slate =
        model::make_slate(tensors, table.view(), random_slate(64, table.count, rng));
    torch::Tensor scores = dense ? ranker->forward_dense(slate) : ranker->forward(slate);
    (void)scores;
  };
  const double infer = rate([&] { infer_step(false); }, min_seconds) * 64;
  std::printf("figure: model_inference_configs_per_s: %.2f configs/s\n", infer);

  torch::optim::Adam optimizer(ranker->parameters(), torch::optim::AdamOptions(1e-3));
  ranker->train();
  auto train_step = [&](bool dense) {
    model::Slate slate =
        model::make_slate(tensors, table.view(), random_slate(16, table.count, rng));
    optimizer.zero_grad();
    torch::Tensor scores = dense ? ranker->forward_dense(slate) : ranker->forward(slate);
    scores.sum().backward();
    optimizer.step();
  };
  // Shared and dense steps alternate so that both see the same machine load.
  train_step(false);
  // Peak memory of inference and of training the shared way (the dense reference needs more).
  std::printf("figure: model_peak_rss: %.1f MiB\n", peak_rss_kib() / 1024.0);
  train_step(true);
  double shared_seconds = 0, dense_seconds = 0;
  int64_t steps = 0;
  const auto start = std::chrono::steady_clock::now();
  while (steps < 3 || seconds_since(start) < 2 * min_seconds) {
    auto t = std::chrono::steady_clock::now();
    train_step(false);
    shared_seconds += seconds_since(t);
    t = std::chrono::steady_clock::now();
    train_step(true);
    dense_seconds += seconds_since(t);
    ++steps;
  }
  std::printf("figure: model_train_configs_per_s: %.2f configs/s\n", 16.0 * steps / shared_seconds);
  std::printf("figure: model_train_dense_reference_configs_per_s: %.2f configs/s\n",
              16.0 * steps / dense_seconds);
  return 0;
}
