// Everything a training run is configured by, with defaults next to the fields. Saved in full
// as RUN_DIR/config.json so any run can be reproduced. The fields are listed once, in field tables
// (core/option_table.h): the data group (data/data_options.h), the training group
// (train_option_fields) and the model's (model/options/model_options.h); JSON, checks, the resume rule,
// `train`'s flags and `sweep`'s pre-check all come from them. Plain C++: no LibTorch.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/option_table.h"
#include "data/data_options.h"
#include "model/options/model_options.h"
#include "xgb/options.h"

namespace graphcost::train {

struct ScheduleOptions;  // train/schedule.h
struct SamplerOptions;   // train/sampler.h

// The data fields (data, collection, split, exclude, skip_invalid, prune_hops, prune_seeds) come
// from data::DataOptions and are stored at the top level of config.json like the others.
struct TrainOptions : data::DataOptions {
  std::string valid_data;  // where the validation split lives; empty: the same as data
  std::string valid_split = "valid";  // empty: no validation
  int64_t iterations = 1000;
  int64_t graphs_per_batch = 4;    // G
  int64_t slate_size = 10;         // S
  std::string loss = "listmle";    // a loss spec, e.g. "diffmat:1,mape:0.1"
  std::string optimizer = "adam";  // "adam" or "adamw"
  double lr = 1e-3;
  double weight_decay = 0.0;
  std::vector<int64_t> decay_at;           // iterations where lr is divided by sqrt(10)
  std::string lr_schedule = "step";        // "step" (decay_at) or "cosine" (to 0 at the end)
  int64_t warmup = 0;                      // iterations of linear learning-rate warm-up
  double grad_clip = 1.0;                  // global gradient norm; <= 0: off
  int64_t log_every = 50;                  // iterations per metrics line
  int64_t validate_every = 500;            // 0: only at the end
  int64_t valid_configs_per_graph = 1000;  // fixed seeded sample per validation graph
  int64_t valid_batch = 100;               // configurations scored per forward pass
  int64_t valid_predictions_graphs = 5;    // graphs written to valid_predictions.jsonl
  // Training graphs (the first N) also scored at each validation, as train_<metric> (-1: all,
  // 0: off): the fit on the training data beside the validation figure.
  int64_t validate_train_graphs = 0;
  int64_t checkpoint_every = 1000;         // 0: only at the end or on interrupt
  // Also a checkpoint once this many seconds of training passed since the last one (or the
  // start), so a run killed early can resume (<= 0: by iterations only).
  double checkpoint_seconds = 300;
  uint64_t seed = 0;
  int threads = 0;  // <= 0: all cores
  // The model's products (model/kernels/precision.h): "fp32", or "bf16" (bf16 inputs, fp32
  // accumulation, weights and optimiser state).
  std::string precision = "fp32";
  // Layout: one row per class of configurations that agree on a node's neighbourhood in the
  // per-configuration matmuls (model/forward/config_classes.h). Exact; false computes every row, for
  // measuring what it saves.
  bool share_rows = true;
  // Graph Segment Training (docs/gst.md): graphs cut into segments of at most gst_segment_nodes
  // nodes (0: off); per step gst_segments_per_step random segments of each graph get
  // gradients, the others come from the historical table, each dropped with probability
  // gst_stale_dropout. gst_partition: "contiguous" (node_splits when present) or "metis".
  // Training copies gst_segment_nodes and gst_partition into model.segment_nodes and
  // model.segment_partition (train/gst.h, apply_gst_options), which have no flags of their own.
  int64_t gst_segment_nodes = 0;
  int64_t gst_segments_per_step = 1;
  double gst_stale_dropout = 0.0;
  std::string gst_partition = "contiguous";
  // Stochastic weight averaging: the mean of the weights every swa_every iterations from
  // iteration swa_start on becomes model.pt (0 = off). See train/swa.h.
  int64_t swa_start = 0;
  int64_t swa_every = 10;
  model::ModelOptions model;

  ScheduleOptions schedule() const;  // defined in schedule.cc
  SamplerOptions sampler() const;    // defined in sampler.cc
};

// The training group's fields (all of TrainOptions but the data group's and the model's), and
// "model" (the nested ModelOptions object, no flag).
OptionTable<TrainOptions> train_option_fields();

void to_json(nlohmann::json& j, const TrainOptions& options);
// Reads the keys present over the current values; an unknown key or a wrong type is an Error
// "train options: <key>: <problem>" ("model options: ..." inside "model").
void from_json(const nlohmann::json& j, TrainOptions& options);

// Checks every field that needs no data (counts, rates, intervals, names) of the three groups;
// an Error names the first bad option by its config.json key ("train options: lr: ...", "model
// options: dropout: ..."). The model's kind must be set (from the collection) before: the
// architecture check depends on it. Data-dependent checks (enough graphs, runtimes) come later.
void check_train_options(const TrainOptions& options);
// Checks the Graph Segment Training fields alone (gst_*).
void check_gst_options(const TrainOptions& options);

// The defaults for tabular records (Kernel Tuner caches: one node, a configuration of a few
// parameters with a few values each), which a new run on such data starts from instead of
// TrainOptions{}: the MLP architecture over one-hot parameter values with dropout, longer
// training on larger slates (docs/kernel-tuner.md, "Training on caches").
TrainOptions tabular_defaults();
// The options in which tabular_defaults() differs from TrainOptions{}, as a front-end names
// them: "--architecture mlp, --config-one-hot 16, ..." (flags) or "architecture='mlp', ..."
// (keyword arguments).
std::string tabular_defaults_text(bool as_flags);

// The defaults a new run on TpuGraphs tile data (tile configurations that are not Kernel Tuner
// records) starts from: SAGE 64 x 3, G = 2, S = 32, 40,000 iterations, the step size divided by
// sqrt(10) at 3/4 of the iterations. At train's defaults (1,000 iterations) the model stopped far
// short of XGBoost on graph features; trained this long it is level with it on the tile score
// and ahead on Kendall tau (docs/quality.md, "Tile"). decay_at holds kDecayAtThreeQuarters until
// finish_tile_defaults() sets it from the iterations the run ends up with.
inline constexpr int64_t kDecayAtThreeQuarters = -1;
TrainOptions tile_defaults();
// After the given options were applied over tile_defaults(): a decay still at its placeholder
// (none was given) becomes 3/4 of the iterations, or none under the cosine schedule.
void finish_tile_defaults(TrainOptions& options);
std::string tile_defaults_text(bool as_flags);

// Which model a new run fits, "gnn" or "xgboost", for the `requested` one ("auto", "gnn" or
// "xgboost"; anything else is an Error naming `option`): auto is XGBoost on Kernel Tuner
// records, where it ranks a held-out device better than the neural model does
// (docs/kernel-tuner.md), and the neural model on every other source.
std::string choose_model(const std::string& requested, const std::string& data,
                         const std::string& split, const std::string& option);
// The options among `given` (config.json keys, model options by their own key) that an XGBoost
// run started by `train` cannot take: everything but the data options, seed, threads and the
// validation data (unused: XGBoost trains to its rounds).
std::vector<std::string> keys_not_for_xgboost(const std::vector<std::string>& given);
// The XGBoost options of such a run: XGBoost's defaults, with the training options' seed and
// threads (on Kernel Tuner records train::run_xgboost sets eta 0.3 and subsample 0.8, the
// held-out-device protocol's choice).
xgb::XgbOptions xgboost_options(const TrainOptions& options);

// The resume rule: which options `train --resume` may give otherwise than the run stored
// (those marked may-change-on-resume in the tables: data, valid_data, iterations, threads,
// share_rows), as their flags; the dotted keys of the others that differ between the stored
// and the given options; and the stored options with the free ones taken from the given.
std::vector<std::string> resume_free_flags();
std::vector<std::string> options_fixed_on_resume_that_differ(const TrainOptions& stored,
                                                             const TrainOptions& given);
void apply_resume_changes(const TrainOptions& given, TrainOptions& stored);

}  // namespace graphcost::train
