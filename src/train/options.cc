// TrainOptions' field table and what derives from the three tables (data, training, model).
#include "train/options.h"

#include <cmath>

#include "core/error.h"
#include "io/collection_readers.h"
#include "run/run_config.h"

namespace graphcost::train {

namespace {

const char* kWhere = "train options";

using O = TrainOptions;

constexpr const char* kLrScheduleChoices = "step,cosine";

std::string at_least_1(int64_t value) { return value >= 1 ? "" : "must be at least 1"; }
std::string at_least_0(int64_t value, const char* zero) {
  return value >= 0 ? "" : std::string("must be >= 0") + zero;
}

nlohmann::json get_model(const O& o) {
  nlohmann::json j;
  model::to_json(j, o.model);
  return j;
}
void set_model(const nlohmann::json& value, O& o) { model::from_json(value, o.model); }

const OptionField<O> kFields[] = {
    {"valid_data", "--valid-data", &O::valid_data,
     "Where the validation split lives, e.g. its own pack (empty: the same as --data)", nullptr,
     true},
    {"valid_split", "--valid-split", &O::valid_split, "Split to validate on (empty: none)"},
    {"iterations", "--iterations", &O::iterations, "Training iterations (batches)",
     [](const O& o) { return at_least_0(o.iterations, ""); }, true},
    {"graphs_per_batch", "--graphs-per-batch", &O::graphs_per_batch, "Graphs per batch (G)",
     [](const O& o) { return at_least_1(o.graphs_per_batch); }},
    {"slate_size", "--slate-size", &O::slate_size, "Configurations per graph in a batch (S)",
     [](const O& o) { return std::string(o.slate_size >= 2 ? "" : "must be at least 2 to rank"); }},
    {"loss", "--loss", &O::loss,
     "Loss spec: listmle, hinge, diffmat, mape, or weighted e.g. diffmat:1,mape:0.1"},
    {"optimizer", "--optimizer", &O::optimizer, "adam or adamw"},
    {"lr", "--lr", &O::lr, "Learning rate",
     [](const O& o) {
       return std::string(std::isfinite(o.lr) && o.lr > 0 ? "" : "must be a positive number");
     }},
    {"weight_decay", "--weight-decay", &O::weight_decay, "Weight decay",
     [](const O& o) {
       return std::string(std::isfinite(o.weight_decay) && o.weight_decay >= 0
                              ? ""
                              : "must be a number >= 0");
     }},
    {"decay_at", "--decay-at", &O::decay_at,
     "Iterations where the learning rate is divided by sqrt(10)",
     [](const O& o) {
       for (int64_t at : o.decay_at)
         if (at < 0) return std::string("iterations must be >= 0");
       return std::string();
     }},
    {"lr_schedule", "--lr-schedule", &O::lr_schedule,
     "After the warm-up: step (the rate divided by sqrt(10) at each --decay-at) or cosine (a "
     "cosine decay from --lr to 0 at the last iteration)",
     [](const O& o) {
       if (o.lr_schedule == "cosine" && !o.decay_at.empty())
         return std::string("cosine takes no --decay-at (it decays by itself)");
       return std::string();
     },
     false, kLrScheduleChoices},
    {"warmup", "--warmup", &O::warmup,
     "Iterations of linear learning-rate warm-up (from lr / warmup to lr; 0: none)",
     [](const O& o) { return at_least_0(o.warmup, " (0: none)"); }},
    {"grad_clip", "--grad-clip", &O::grad_clip, "Largest global gradient norm (<= 0: no clipping)",
     [](const O& o) {
       return std::string(!std::isnan(o.grad_clip) ? "" : "must be a number (<= 0: off)");
     }},
    {"log_every", "--log-every", &O::log_every, "Iterations per metrics.jsonl line",
     [](const O& o) { return at_least_1(o.log_every); }},
    {"validate_every", "--validate-every", &O::validate_every,
     "Iterations between validations (0: only at the end)",
     [](const O& o) { return at_least_0(o.validate_every, " (0: only at the end)"); }},
    {"valid_configs_per_graph", "--valid-configs-per-graph", &O::valid_configs_per_graph,
     "Configurations sampled per validation graph (<= 0: all)"},
    {"valid_batch", "--valid-batch", &O::valid_batch,
     "Configurations scored per forward pass in validation",
     [](const O& o) { return at_least_1(o.valid_batch); }},
    {"valid_predictions_graphs", "--valid-predictions-graphs", &O::valid_predictions_graphs,
     "Graphs written to valid_predictions.jsonl",
     [](const O& o) { return at_least_0(o.valid_predictions_graphs, ""); }},
    {"validate_train_graphs", "--validate-train-graphs", &O::validate_train_graphs,
     "Training graphs (the first N; -1: all) also scored at each validation on the same "
     "sample size, logged as train_<metric>, to tell under- from over-fitting (0: off)",
     [](const O& o) {
       return std::string(o.validate_train_graphs >= -1 ? "" : "must be >= -1 (-1: all, 0: off)");
     },
     true},
    {"checkpoint_every", "--checkpoint-every", &O::checkpoint_every,
     "Iterations between checkpoints (0: only at the end)",
     [](const O& o) { return at_least_0(o.checkpoint_every, " (0: only at the end)"); }},
    {"checkpoint_seconds", "--checkpoint-seconds", &O::checkpoint_seconds,
     "Seconds of training after which a checkpoint is written even between --checkpoint-every "
     "iterations (<= 0: by iterations only)",
     [](const O& o) {
       return std::string(!std::isnan(o.checkpoint_seconds) ? "" : "must be a number (<= 0: off)");
     },
     true},
    {"seed", "--seed", &O::seed, "Random seed (model init, batches, validation sample)"},
    {"threads", "--threads", &O::threads, "Threads for LibTorch and our kernels (<= 0: all cores)",
     nullptr, true},
    {"precision", "--precision", &O::precision,
     "The model's products: fp32, or bf16 (bf16 inputs, fp32 accumulation, weights and "
     "optimiser state; needs a CPU with AVX512-BF16 or AMX-BF16)",
     nullptr, true, model::kPrecisionChoices},
    {"share_rows", "--share-rows", &O::share_rows,
     "Layout: compute one row per class of configurations that agree on a node's "
     "neighbourhood (exact; false: every configuration's row)",
     nullptr, true},
    {"gst_segment_nodes", "--gst-segment-nodes", &O::gst_segment_nodes,
     "Graph Segment Training: nodes per segment (0: off; docs/gst.md)",
     [](const O& o) {
       if (o.gst_segment_nodes > 0 && model::uses_layout_shapes(o.model))
         return std::string(
             "segments cut configurable nodes from their operands, whose shapes layout_shapes "
             "reads; train without one of them");
       return at_least_0(o.gst_segment_nodes, " (0: off)");
     }},
    {"gst_segments_per_step", "--gst-segments-per-step", &O::gst_segments_per_step,
     "GST: segments per graph computed with gradients each step",
     [](const O& o) { return at_least_1(o.gst_segments_per_step); }},
    {"gst_stale_dropout", "--gst-stale-dropout", &O::gst_stale_dropout,
     "GST: probability of dropping each stale (historical) segment score",
     [](const O& o) {
       return std::string(o.gst_stale_dropout >= 0 && o.gst_stale_dropout < 1 ? ""
                                                                               : "must be in [0, 1)");
     }},
    {"gst_partition", "--gst-partition", &O::gst_partition,
     "GST: contiguous (node_splits first) or metis",
     [](const O& o) {
       return o.gst_partition == "contiguous" || o.gst_partition == "metis"
                  ? std::string()
                  : "unknown partition \"" + o.gst_partition + "\" (valid: contiguous, metis)";
     }},
    {"swa_start", "--swa-start", &O::swa_start,
     "Average the weights from this iteration on into model.pt (0: off)",
     [](const O& o) { return at_least_0(o.swa_start, " (0: off)"); }},
    {"swa_every", "--swa-every", &O::swa_every, "Iterations between weight-average snapshots",
     [](const O& o) { return at_least_1(o.swa_every); }},
    {"model", "", OptionAccessor<O>{get_model, set_model}, "The model's options"},
};

const data::DataOptions& data_part(const O& o) { return o; }
data::DataOptions& data_part(O& o) { return o; }

}  // namespace

OptionTable<TrainOptions> train_option_fields() { return kFields; }

void to_json(nlohmann::json& j, const TrainOptions& o) {
  j = nlohmann::json::object();
  write_option_fields(j, data::data_option_fields(), data_part(o));
  write_option_fields(j, train_option_fields(), o);
}

void from_json(const nlohmann::json& j, TrainOptions& o) {
  check_data(j.is_object(), kWhere, "", "expected a JSON object");
  // A run's config.json reads as options: its format version and model type are checked here.
  const nlohmann::json body = run::strip_run_header(j, run::ModelType::Gnn, kWhere);
  for (const auto& [key, value] : body.items()) {
    if (read_option_field(data::data_option_fields(), key, value, data_part(o), kWhere)) continue;
    if (read_option_field(train_option_fields(), key, value, o, kWhere)) continue;
    // config.json records how many processes trained the run; not an option.
    if (key == "world_size") continue;
    throw Error(kWhere, key, "unknown key");
  }
}

std::string choose_model(const std::string& requested, const std::string& data,
                         const std::string& split, const std::string& option) {
  check_data(requested == "auto" || requested == "gnn" || requested == "xgboost", "train", option,
             "auto, gnn or xgboost, got '" + requested + "'");
  if (requested != "auto") return requested;
  return !data.empty() && io::is_kernel_tuner_source(data, split) ? "xgboost" : "gnn";
}

std::vector<std::string> keys_not_for_xgboost(const std::vector<std::string>& given) {
  std::vector<std::string> refused;
  for (const std::string& key : given) {
    bool data_key = false;
    for (const auto& field : data::data_option_fields()) data_key |= key == field.key;
    if (!data_key && key != "seed" && key != "threads" && key != "valid_split" &&
        key != "valid_data")
      refused.push_back(key);
  }
  return refused;
}

xgb::XgbOptions xgboost_options(const TrainOptions& options) {
  xgb::XgbOptions x;
  x.seed = options.seed;
  x.threads = options.threads;
  return x;
}

TrainOptions tabular_defaults() {
  TrainOptions o;
  o.collection = "tile:xla";  // the reader's kind for such records
  o.iterations = 3000;
  o.graphs_per_batch = 2;
  o.slate_size = 256;
  o.model.architecture = "mlp";
  o.model.config_one_hot = 16;
  // Chosen on 7 of the 8 folds' inner leave-one-device-out over 0 and 0.3 (docs/xgboost.md).
  o.model.dropout = 0.3;
  return o;
}

namespace {

// The options in which `defaults` differs from TrainOptions{}, as a front-end names them.
std::string defaults_text(const TrainOptions& defaults, bool as_flags) {
  const nlohmann::json base = TrainOptions{}, changed = defaults;
  std::string text;
  auto add = [&](const std::string& key, const nlohmann::json& value) {
    std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
    if (!as_flags && value.is_string()) shown = "'" + shown + "'";
    if (as_flags && value.is_array()) {  // a flag takes a list as words: --hidden 64 64 64
      shown.clear();
      for (const auto& item : value) shown += (shown.empty() ? "" : " ") + item.dump();
    }
    text += (text.empty() ? "" : ", ") +
            (as_flags ? flag_of_key(key) + " " + shown : key + "=" + shown);
  };
  for (const auto& [key, value] : changed.items()) {
    if (key == "model") {
      for (const auto& [model_key, model_value] : value.items())
        if (model_value != base["model"][model_key]) add(model_key, model_value);
    } else if (key == "decay_at" && value == nlohmann::json::array({kDecayAtThreeQuarters})) {
      text +=
          (text.empty() ? "" : ", ") + (as_flags ? flag_of_key(key) + " at 3/4 of the iterations"
                                                 : key + "=3/4 of the iterations");
    } else if (value != base[key]) {
      add(key, value);
    }
  }
  return text;
}

}  // namespace

std::string tabular_defaults_text(bool as_flags) {
  return defaults_text(tabular_defaults(), as_flags);
}

TrainOptions tile_defaults() {
  TrainOptions o;
  // Chosen on synthetic medium's tile validation split over 1,000 to 40,000 iterations, step
  // sizes 1e-3 and 3e-3, step and cosine decay (docs/quality.md, "Tile").
  o.iterations = 40000;
  o.decay_at = {kDecayAtThreeQuarters};
  o.graphs_per_batch = 2;
  o.slate_size = 32;
  o.model.hidden = {64, 64, 64};
  return o;
}

void finish_tile_defaults(TrainOptions& options) {
  if (options.decay_at != std::vector<int64_t>{kDecayAtThreeQuarters}) return;
  // A cosine schedule decays by itself.
  options.decay_at.clear();
  if (options.lr_schedule == "step") options.decay_at = {options.iterations * 3 / 4};
}

std::string tile_defaults_text(bool as_flags) { return defaults_text(tile_defaults(), as_flags); }

void check_train_options(const TrainOptions& o) {
  check_option_fields(data::data_option_fields(), data_part(o), kWhere);
  check_option_fields(train_option_fields(), o, kWhere);
  model::check_model_options(o.model);
}

void check_gst_options(const TrainOptions& o) {
  for (const auto& field : train_option_fields()) {
    if (std::string(field.key).rfind("gst_", 0) != 0 || field.check == nullptr) continue;
    const std::string problem = field.check(o);
    check_data(problem.empty(), kWhere, field.key, problem);
  }
}

std::vector<std::string> resume_free_flags() {
  std::vector<std::string> flags;
  for (const std::string& key : resume_free_keys(data::data_option_fields()))
    flags.push_back(flag_of_key(key));
  for (const std::string& key : resume_free_keys(train_option_fields()))
    flags.push_back(flag_of_key(key));
  return flags;
}

std::vector<std::string> options_fixed_on_resume_that_differ(const TrainOptions& stored,
                                                             const TrainOptions& given) {
  // Compared as JSON, so a difference is named by its config.json key ("model.hidden").
  TrainOptions a = stored, b = given;
  apply_resume_changes(TrainOptions{}, a);
  apply_resume_changes(TrainOptions{}, b);
  return differing_keys(nlohmann::json(a), nlohmann::json(b));
}

void apply_resume_changes(const TrainOptions& given, TrainOptions& stored) {
  copy_resume_free_fields(data::data_option_fields(), data_part(given), data_part(stored));
  copy_resume_free_fields(train_option_fields(), given, stored);
}

}  // namespace graphcost::train
