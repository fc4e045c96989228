// Everything a training run is configured by, with defaults next to the fields. Saved in full
// as RUN_DIR/config.json so any run can be reproduced.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/ranker.h"
#include "train/sampler.h"
#include "train/schedule.h"

namespace graphcost::train {

struct TrainOptions {
  std::string data;  // dataset root, collection folder, file or pack
  std::string valid_data;  // where the validation split lives; empty: the same as data
  std::string collection = "layout:xla:random";
  std::string split = "train";
  std::string valid_split = "valid";  // empty: no validation
  std::vector<std::string> exclude;  // graph names (file stems) left out of both splits
  bool skip_invalid = false;         // warn and skip files that fail validation
  int64_t iterations = 1000;
  int64_t graphs_per_batch = 4;    // G
  int64_t slate_size = 10;         // S
  std::string loss = "listmle";    // a loss spec, e.g. "diffmat:1,mape:0.1"
  std::string optimizer = "adam";  // "adam" or "adamw"
  double lr = 1e-3;
  double weight_decay = 0.0;
  std::vector<int64_t> decay_at;           // iterations where lr is divided by sqrt(10)
  double grad_clip = 1.0;                  // global gradient norm; <= 0: off
  int64_t log_every = 50;                  // iterations per metrics line
  int64_t validate_every = 500;            // 0: only at the end
  int64_t valid_configs_per_graph = 1000;  // fixed seeded sample per validation graph
  int64_t valid_batch = 100;               // configurations scored per forward pass
  int64_t valid_predictions_graphs = 5;    // graphs written to valid_predictions.jsonl
  int64_t checkpoint_every = 1000;         // 0: only at the end or on interrupt
  uint64_t seed = 0;
  int threads = 0;  // <= 0: all cores
  // Layout: one row per class of configurations that agree on a node's neighbourhood in the
  // per-configuration matmuls (model/config_classes.h). Exact; false computes every row, for
  // measuring what it saves.
  bool share_rows = true;
  // Train and validate on graphs pruned to the neighbourhood of their configurable nodes
  // (data/prune.h); eval and predict apply the same pruning to a run's data.
  int prune_hops = -1;  // -1: no pruning
  std::string prune_seeds = "all";  // "all", "conv-dot-reshape" or HLO opcode names (a,b,...)
  // Graph Segment Training (docs/gst.md): graphs cut into segments of at most gst_segment_nodes
  // nodes (0: off); per step gst_segments_per_step random segments of each graph get
  // gradients, the others come from the historical table, each dropped with probability
  // gst_stale_dropout. gst_partition: "contiguous" (node_splits when present) or "metis".
  int64_t gst_segment_nodes = 0;
  int64_t gst_segments_per_step = 1;
  double gst_stale_dropout = 0.0;
  std::string gst_partition = "contiguous";
  // Stochastic weight averaging: the mean of the weights every swa_every iterations from
  // iteration swa_start on becomes model.pt (0 = off). See train/swa.h.
  int64_t swa_start = 0;
  int64_t swa_every = 10;
  model::ModelOptions model;

  ScheduleOptions schedule() const;
  SamplerOptions sampler() const;
};

void to_json(nlohmann::json& j, const TrainOptions& options);
// Reads the keys present over the current values; an unknown key or a wrong type is an Error
// naming the key.
void from_json(const nlohmann::json& j, TrainOptions& options);

// Checks the values that need no data (counts, rates, intervals); an Error names the first bad
// option by its config.json key. Data-dependent checks (enough graphs, runtimes) come later.
void check_train_options(const TrainOptions& options);

}  // namespace graphcost::train
