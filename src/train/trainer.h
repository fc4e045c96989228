// The training loop: batches from the sampler, the loss spec, the optimiser and its schedule;
// a progress line; validation metrics every N iterations; atomic checkpoints; resume; a clean
// stop on Ctrl-C. Files in RUN_DIR: config.json (resolved options), metrics.jsonl (one JSON
// object per logged iteration), checkpoint.pt, model.pt, valid_predictions.jsonl.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/collection.h"
#include "dist/group.h"
#include "model/forward/ranker.h"
#include "train/interrupt.h"
#include "train/options.h"
#include "train/sampler.h"

namespace graphcost::train {

// One validation graph's scores and measured runtimes on its validation sample.
struct GraphPrediction {
  std::string graph;
  std::vector<int64_t> config_indices;
  std::vector<double> predicted;
  std::vector<double> measured;
};

// Means over the graphs of valid (those with runtimes and >= 2 configurations) on a fixed
// seeded sample of options.valid_configs_per_graph configurations each. Layout: kendall_tau,
// opa; tile: top1_error, top5_error, top10_error, tile_score; plus valid_graphs (the count).
// Per-graph predictions go to *predictions when given. The graphs are scored one per core
// (the count LibTorch is set to), and the result does not depend on that count. With a group,
// each rank scores the graphs it owns and every rank returns the same means as one process.
nlohmann::json validate(model::Ranker& model, const data::Collection& valid,
                        GraphTensorCache& cache, const TrainOptions& options,
                        std::vector<GraphPrediction>* predictions = nullptr,
                        dist::Group* group = nullptr);

struct TrainResult {
  int64_t iterations = 0;  // iterations completed in total
  bool interrupted = false;
  double last_loss = 0;            // mean loss of the last logged interval
  nlohmann::json last_validation;  // empty when no validation ran
  double data_wait_fraction = 0;   // share of the loop's time spent waiting for batches
  double allreduce_seconds_per_step = 0;  // across processes: the gradients' allreduce
  int64_t allreduce_bytes_per_step = 0;
};

// Fills the data-dependent model options (kind, feature widths) from a collection.
model::ModelOptions resolve_model_options(const model::ModelOptions& options,
                                          const data::Collection& collection);

// Trains on train_set, validating on valid_set (may be null), writing into run_dir (created
// when missing). resume: continue from run_dir/checkpoint.pt with its stored options; only
// iterations, threads, share_rows and the data paths (data, valid_data) are taken from options
// (so a finished run can be extended, on other threads, from data that has moved).
// group (data parallel, docs/distributed.md): every rank draws the same batches and computes
// its share of each batch's slates; the gradients are summed across the ranks and every rank
// takes the same step. Rank 0 alone writes run_dir; the world size may change on resume.
// observer, when given, is called on the training thread after every iteration with the
// iterations done so far and the metrics.jsonl line that iteration wrote (null when none): the
// Python module's progress callback. It may call request_stop() to stop with a checkpoint.
using IterationObserver = std::function<void(int64_t iteration, const nlohmann::json& logged)>;
TrainResult train(const TrainOptions& options, const data::Collection& train_set,
                  const data::Collection* valid_set, const std::string& run_dir, bool resume,
                  dist::Group* group = nullptr, const IterationObserver& observer = nullptr);

}  // namespace graphcost::train
