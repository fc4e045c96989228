// Graph Segment Training against whole-graph training on one synthetic XLA-like layout graph:
// peak resident memory (getrusage ru_maxrss) and training configurations per second. One mode
// per process, since the peak is per process (bench/gst_bench.sh runs the set).
//   gst_bench --mode full|gst [--nodes 40000] [--slate 64] [--segment-nodes 4000]
//             [--per-step 1] [--partition contiguous|metis] [--steps 5] [--max-gib 0]
// --max-gib caps the address space (setrlimit RLIMIT_AS): a run that needs more stops with an
// allocation failure, reported as a figure instead of pushing the machine into swap.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "bench_graphs.h"
#include "data/collection.h"
#include "model/forward/ranker.h"
#include "model/kernels/threads.h"
#include "train/gst.h"
#include "train/losses.h"
#include "train/sampler.h"
#include "train/trainer.h"

namespace {

using namespace graphcost;

struct Args {
  std::string mode = "gst";
  int64_t nodes = 40000;
  int64_t slate = 64;
  int64_t segment_nodes = 4000;
  int64_t per_step = 1;
  std::string partition = "contiguous";
  int64_t steps = 5;
  double max_gib = 0;
  double configurable = 0.05;
};

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // ru_maxrss is in KiB on Linux
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App app("Graph Segment Training against whole-graph training: peak RSS and configs/s");
  app.add_option("--mode", args.mode, "full or gst")
      ->check(CLI::IsMember({"full", "gst"}))
      ->capture_default_str();
  app.add_option("--nodes", args.nodes, "graph size")->capture_default_str();
  app.add_option("--slate", args.slate, "configurations per step")->capture_default_str();
  app.add_option("--segment-nodes", args.segment_nodes, "GST segment size")->capture_default_str();
  app.add_option("--per-step", args.per_step, "GST segments with gradients per step")
      ->capture_default_str();
  app.add_option("--partition", args.partition, "contiguous or metis")
      ->check(CLI::IsMember({"contiguous", "metis"}))
      ->capture_default_str();
  app.add_option("--steps", args.steps, "timed steps after the first")->capture_default_str();
  app.add_option("--max-gib", args.max_gib, "address-space cap in GiB (0: none)")
      ->capture_default_str();
  app.add_option("--configurable", args.configurable, "configurable fraction")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  model::set_threads(2);
  std::vector<data::GraphRecord> records(1);
  records[0].graph = bench::random_xla_like_graph(args.nodes, 140, args.configurable, 1);
  records[0].configs = bench::random_layouts(
      256, static_cast<int64_t>(records[0].graph.configurable_nodes.size()), 18, 2);
  records[0].source = "bench";
  data::CollectionId id;
  id.kind = data::ConfigKind::Layout;
  id.space = "xla";
  id.search = "random";
  data::MemoryCollection collection(id, "train", std::move(records));

  train::TrainOptions options;
  options.seed = 0;
  options.gst_segment_nodes = args.segment_nodes;
  options.gst_segments_per_step = args.per_step;
  options.gst_partition = args.partition;
  torch::manual_seed(0);
  model::Ranker ranker(train::resolve_model_options(options.model, collection));
  train::GraphTensorCache cache(collection);
  std::unique_ptr<train::SegmentTrainer> gst;
  if (args.mode == "gst") gst = std::make_unique<train::SegmentTrainer>(collection, options);
  const auto loss = train::parse_loss_spec("listmle");
  torch::optim::Adam optimizer(ranker->parameters(), torch::optim::AdamOptions(1e-3));
  ranker->train();
  Random random(7);
  const std::string name = args.mode == "gst"
                               ? "gst_n" + std::to_string(args.nodes) + "_seg" +
                                     std::to_string(args.segment_nodes) + "_k" +
                                     std::to_string(args.per_step) + "_" + args.partition +
                                     "_s" + std::to_string(args.slate)
                               : "full_n" + std::to_string(args.nodes) + "_s" +
                                     std::to_string(args.slate);
  if (gst) {
    std::printf("figure: %s_segments: %zu count\n", name.c_str(), gst->segments(0).segments.size());
  }
  std::printf("figure: %s_setup_peak_rss: %.1f MiB\n", name.c_str(), peak_rss_mib());
  std::fflush(stdout);
  if (args.max_gib > 0) {
    const rlim_t limit = static_cast<rlim_t>(args.max_gib * 1024 * 1024 * 1024);
    rlimit cap{limit, limit};
    setrlimit(RLIMIT_AS, &cap);
  }
  auto step = [&](int64_t k) {
    model::Slate slate = model::make_slate(
        cache.get(0), collection.configs(0),
        train::sample_without_replacement(random, collection.configs(0).count, args.slate));
    slate.graph_index = 0;
    optimizer.zero_grad();
    torch::Tensor scores = gst ? gst->forward(ranker, slate, static_cast<uint64_t>(k))
                               : ranker->forward(slate);
    (*loss)(scores, slate.runtimes).backward();
    optimizer.step();
  };
  try {
    // The first GST step also fills the historical table (every segment without gradients).
    auto start = std::chrono::steady_clock::now();
    step(0);
    std::printf("figure: %s_first_step: %.2f s\n", name.c_str(), seconds_since(start));
    start = std::chrono::steady_clock::now();
    for (int64_t k = 1; k <= args.steps; ++k) step(k);
    const double seconds = seconds_since(start);
    std::printf("figure: %s_train_configs_per_s: %.2f configs/s\n", name.c_str(),
                static_cast<double>(args.steps * args.slate) / seconds);
  } catch (const std::exception& e) {
    std::printf("figure: %s_stopped_at_memory_cap: %.1f GiB\n", name.c_str(), args.max_gib);
    std::fprintf(stderr, "gst_bench: %s stopped: %.200s\n", name.c_str(), e.what());
  }
  std::printf("figure: %s_peak_rss: %.1f MiB\n", name.c_str(), peak_rss_mib());
  return 0;
}
