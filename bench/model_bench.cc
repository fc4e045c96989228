// Speed of the default ranker on a large layout graph: training and inference throughput in
// configurations per second and peak memory, with 2 threads.
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "data/configs.h"
#include "data/graph.h"
#include "model/config_reach.h"
#include "model/graph_tensors.h"
#include "model/ranker.h"
#include "model/threads.h"

namespace {

using namespace graphcost;

// A random DAG shaped like an XLA graph: long chains (each node usually consumes its
// predecessor) plus a few operands from nearby or far-away earlier nodes, about 1.6 per node.
data::Graph random_xla_like_graph(int64_t n, int64_t feature_width, double configurable_fraction,
                                  uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  data::Graph g;
  g.name = "bench";
  g.num_nodes = n;
  g.feature_width = feature_width;
  std::uniform_int_distribution<int32_t> opcode(0, 255);
  std::lognormal_distribution<float> feature(0.0f, 2.0f);
  for (int64_t v = 0; v < n; ++v) g.opcodes.push_back(opcode(rng));
  for (int64_t k = 0; k < n * feature_width; ++k) {
    g.node_features.push_back(uniform(rng) < 0.7 ? 0.0f : feature(rng));
  }
  for (int32_t v = 1; v < n; ++v) {
    if (uniform(rng) < 0.9) g.edges.insert(g.edges.end(), {v, v - 1});
    for (int extra = 0; extra < 2; ++extra) {
      if (uniform(rng) >= 0.35) continue;
      const int32_t low = uniform(rng) < 0.9 ? std::max(0, v - 500) : 0;
      g.edges.insert(g.edges.end(), {v, std::uniform_int_distribution<int32_t>(low, v - 1)(rng)});
    }
  }
  for (int32_t v = 0; v < n; ++v) {
    if (uniform(rng) < configurable_fraction) g.configurable_nodes.push_back(v);
  }
  g.build_adjacency();
  return g;
}

data::ConfigTable random_layouts(int64_t count, int64_t nodes, int64_t width, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-1, 5);
  data::ConfigTable t;
  t.kind = data::ConfigKind::Layout;
  t.count = count;
  t.nodes = nodes;
  t.width = width;
  for (int64_t k = 0; k < count * nodes * width; ++k)
    t.layout.push_back(static_cast<int8_t>(value(rng)));
  for (int64_t k = 0; k < count; ++k) t.runtimes.push_back(1.0 + k);
  return t;
}

std::vector<int64_t> random_slate(int64_t size, int64_t count, std::mt19937& rng) {
  std::vector<int64_t> out;
  std::uniform_int_distribution<int64_t> pick(0, count - 1);
  for (int64_t i = 0; i < size; ++i) out.push_back(pick(rng));
  return out;
}

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
