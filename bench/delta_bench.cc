// Full (every node for every configuration: forward_dense) against delta evaluation (the
// configuration-independent part once per slate: forward) on random XLA-like layout graphs of
// several sizes and configurable fractions: training and inference configurations per second,
// their ratios, the share of nodes within l hops of a configurable node, and training on the
// graph pruned to 1 hop. Default model, 2 threads. Prints `figure: name: value unit` lines.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_graphs.h"
#include "data/prune.h"
#include "model/forward/config_reach.h"
#include "model/forward/graph_tensors.h"
#include "model/forward/ranker.h"
#include "model/kernels/threads.h"
#include "train/losses.h"

namespace {

using namespace graphcost;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Steps per second of step(): one warm-up, then at least min_steps and min_seconds.
double steps_per_second(const std::function<void()>& step, int64_t min_steps, double min_seconds) {
  step();
  const auto start = std::chrono::steady_clock::now();
  int64_t steps = 0;
  while (steps < min_steps || seconds_since(start) < min_seconds) {
    step();
    ++steps;
  }
  return static_cast<double>(steps) / seconds_since(start);
}

struct Settings {
  std::vector<int64_t> nodes = {5000, 20000, 40000};
  std::vector<double> fractions = {0.02, 0.05, 0.10};
  double seconds = 3;
  int64_t min_steps = 2;
  // Dense training keeps about 14 KB per node and configuration for the backward (default
  // model); slates are sized to keep nodes * S near this, so 40k-node graphs train with S = 4.
  int64_t dense_budget = 160000;
  int64_t max_slate = 16;
  int threads = 2;
  bool skip_dense = false;
};

class Cell {
 public:
  Cell(const Settings& settings, int64_t n, double fraction)
      : settings_(settings),
        name_(std::to_string(n / 1000) + "k_" + std::to_string(static_cast<int>(fraction * 100 + 0.5)) +
              "pct"),
        graph_(bench::random_xla_like_graph(n, 140, fraction, static_cast<uint32_t>(n) + 1)),
        tensors_(model::make_graph_tensors(graph_)),
        table_(bench::random_layouts(200, static_cast<int64_t>(graph_.configurable_nodes.size()),
                                     18, 2)),
        slate_(std::clamp<int64_t>(settings.dense_budget / n, 2, settings.max_slate)),
        loss_(train::parse_loss_spec("listmle")) {}

  void run() {
    torch::manual_seed(0);
    model::Ranker ranker(model::ModelOptions{});
    const int64_t layers = static_cast<int64_t>(ranker->options().hidden.size());
    const model::ConfigReachPlan plan = model::plan_config_reach(tensors_, layers, false);
    std::printf("figure: %s_configurable_nodes: %zu count\n", name_.c_str(),
                graph_.configurable_nodes.size());
    for (int64_t l = 0; l <= layers; ++l) {
      std::printf("figure: %s_nodes_within_%lld_hops: %.3f fraction\n", name_.c_str(),
                  static_cast<long long>(l),
                  static_cast<double>(plan.reach[l]) / graph_.num_nodes);
    }
    std::printf("figure: %s_train_slate: %lld configs\n", name_.c_str(),
                static_cast<long long>(slate_));
    torch::optim::Adam optimizer(ranker->parameters(), torch::optim::AdamOptions(1e-3));
    const double delta_train = train_rate(ranker, optimizer, tensors_, Mode::Delta);
    const double delta_infer = infer_rate(ranker, Mode::Delta);
    print(name_ + "_delta_train", delta_train);
    print(name_ + "_delta_inference", delta_infer);
    if (!settings_.skip_dense) {
      const double dense_train = train_rate(ranker, optimizer, tensors_, Mode::Dense);
      const double dense_infer = infer_rate(ranker, Mode::Dense);
      print(name_ + "_full_train", dense_train);
      print(name_ + "_full_inference", dense_infer);
      std::printf("figure: %s_train_delta_over_full: %.2f ratio\n", name_.c_str(),
                  delta_train / dense_train);
      std::printf("figure: %s_inference_delta_over_full: %.2f ratio\n", name_.c_str(),
                  delta_infer / dense_infer);
    }
    const data::Graph pruned = data::prune_graph(graph_, 1);
    const model::GraphTensors pruned_tensors = model::make_graph_tensors(pruned);
    std::printf("figure: %s_prune1_nodes_kept: %.3f fraction\n", name_.c_str(),
                static_cast<double>(pruned.num_nodes) / graph_.num_nodes);
    const double pruned_train = train_rate(ranker, optimizer, pruned_tensors, Mode::Delta);
    print(name_ + "_prune1_delta_train", pruned_train);
    std::printf("figure: %s_prune1_train_over_delta: %.2f ratio\n", name_.c_str(),
                pruned_train / delta_train);
    std::fflush(stdout);
  }

 private:
  enum class Mode { Dense, Delta };

  static void print(const std::string& name, double configs_per_s) {
    std::printf("figure: %s: %.1f configs/s\n", name.c_str(), configs_per_s);
  }

  model::Slate slate(const model::GraphTensors& tensors, int64_t size) {
    model::Slate s =
        model::make_slate(tensors, table_.view(), bench::random_slate(size, table_.count, rng_));
    return s;
  }

  // One training step as the trainer takes it: ListMLE (shift-invariant, so the delta path
  // leaves out the constant), backward, Adam.
  double train_rate(model::Ranker& ranker, torch::optim::Optimizer& optimizer,
                    const model::GraphTensors& tensors, Mode mode) {
    ranker->train();
    auto step = [&] {
      const model::Slate s = slate(tensors, slate_);
      optimizer.zero_grad();
      const torch::Tensor scores = mode == Mode::Dense
                                       ? ranker->forward_dense(s)
                                       : ranker->forward(s, /*with_constant=*/false);
      (*loss_)(scores, s.runtimes).backward();
      optimizer.step();
    };
    return slate_ * steps_per_second(step, settings_.min_steps, settings_.seconds);
  }

  // Inference without gradients on slates twice the training size (absolute scores: the
  // delta path adds the constant back).
  double infer_rate(model::Ranker& ranker, Mode mode) {
    ranker->eval();
    const int64_t size = 2 * slate_;
    auto step = [&] {
      torch::NoGradGuard no_grad;
      const model::Slate s = slate(tensors_, size);
      const torch::Tensor scores =
          mode == Mode::Dense ? ranker->forward_dense(s) : ranker->forward(s);
      (void)scores;
    };
    return size * steps_per_second(step, settings_.min_steps, settings_.seconds);
  }

  const Settings& settings_;
  std::string name_;
  data::Graph graph_;
  model::GraphTensors tensors_;
  data::ConfigTable table_;
  int64_t slate_;
  std::unique_ptr<train::WeightedLoss> loss_;
  std::mt19937 rng_{3};
};

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  bool quick = false;
  CLI::App app("Full against delta evaluation of the default ranker on random layout graphs");
  app.add_option("--nodes", settings.nodes, "graph sizes")->delimiter(',')->capture_default_str();
  app.add_option("--fractions", settings.fractions, "configurable fractions")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--seconds", settings.seconds, "least seconds per measurement")
      ->capture_default_str();
  app.add_option("--min-steps", settings.min_steps, "least steps per measurement")
      ->capture_default_str();
  app.add_option("--dense-budget", settings.dense_budget,
                 "training slate = clamp(budget / nodes, 2, --max-slate)")
      ->capture_default_str();
  app.add_option("--max-slate", settings.max_slate, "largest training slate")->capture_default_str();
  app.add_option("--threads", settings.threads, "threads")->capture_default_str();
  app.add_flag("--skip-full", settings.skip_dense, "measure the delta path only");
  app.add_flag("--quick", quick, "one 5k-node graph with 5% configurable nodes, 1 s per figure");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    settings.nodes = {5000};
    settings.fractions = {0.05};
    settings.seconds = 1;
  }
  // Keep freed tensor memory in the process (see model_bench.cc).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  model::set_threads(settings.threads);
  std::printf("figure: threads: %d count\n", settings.threads);
  for (int64_t n : settings.nodes) {
    for (double fraction : settings.fractions) Cell(settings, n, fraction).run();
  }
  return 0;
}
