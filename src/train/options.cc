#include "train/options.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "run/run_config.h"

namespace graphcost::train {

ScheduleOptions TrainOptions::schedule() const {
  ScheduleOptions s;
  s.optimizer = optimizer;
  s.lr = lr;
  s.weight_decay = weight_decay;
  s.decay_at = decay_at;
  s.grad_clip = grad_clip;
  return s;
}

SamplerOptions TrainOptions::sampler() const {
  SamplerOptions s;
  s.graphs_per_batch = graphs_per_batch;
  s.slate_size = slate_size;
  s.seed = seed;
  return s;
}

void to_json(nlohmann::json& j, const TrainOptions& o) {
  j = nlohmann::json{{"data", o.data},
                     {"valid_data", o.valid_data},
                     {"collection", o.collection},
                     {"split", o.split},
                     {"valid_split", o.valid_split},
                     {"exclude", o.exclude},
                     {"skip_invalid", o.skip_invalid},
                     {"iterations", o.iterations},
                     {"graphs_per_batch", o.graphs_per_batch},
                     {"slate_size", o.slate_size},
                     {"loss", o.loss},
                     {"optimizer", o.optimizer},
                     {"lr", o.lr},
                     {"weight_decay", o.weight_decay},
                     {"decay_at", o.decay_at},
                     {"grad_clip", o.grad_clip},
                     {"log_every", o.log_every},
                     {"validate_every", o.validate_every},
                     {"valid_configs_per_graph", o.valid_configs_per_graph},
                     {"valid_batch", o.valid_batch},
                     {"valid_predictions_graphs", o.valid_predictions_graphs},
                     {"checkpoint_every", o.checkpoint_every},
                     {"seed", o.seed},
                     {"threads", o.threads},
                     {"share_rows", o.share_rows},
                     {"prune_hops", o.prune_hops},
                     {"prune_seeds", o.prune_seeds},
                     {"swa_start", o.swa_start},
                     {"swa_every", o.swa_every}};
  j["gst_segment_nodes"] = o.gst_segment_nodes;
  j["gst_segments_per_step"] = o.gst_segments_per_step;
  j["gst_stale_dropout"] = o.gst_stale_dropout;
  j["gst_partition"] = o.gst_partition;
  nlohmann::json model;
  model::to_json(model, o.model);
  j["model"] = model;
}

namespace {
template <typename T>
void read(const nlohmann::json& value, const std::string& key, T& out) {
  // nlohmann converts 1e30 or -1 into an integer field without a word: the value must fit.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    bool fits = false;
    constexpr T low = std::numeric_limits<T>::min(), high = std::numeric_limits<T>::max();
    if (value.is_number_unsigned()) {
      fits = value.get<uint64_t>() <= static_cast<uint64_t>(high);
    } else if (value.is_number_integer()) {
      const int64_t v = value.get<int64_t>();
      if constexpr (std::is_signed_v<T>) {
        fits = v >= low && v <= high;
      } else {
        fits = v >= 0 && static_cast<uint64_t>(v) <= high;
      }
    } else if (value.is_number_float()) {
      const double d = value.get<double>();
      fits = d == std::floor(d) && d >= static_cast<double>(low) && d < static_cast<double>(high);
    }
    if (value.is_number() && !fits)
      throw Error("train options", key,
                  "expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
                      "], got " + value.dump());
    if (value.is_number_float()) {
      out = static_cast<T>(value.get<double>());
      return;
    }
  }
  try {
    out = value.get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("train options", key, std::string("wrong type: ") + e.what());
  }
}
}  // namespace

void from_json(const nlohmann::json& j, TrainOptions& o) {
  check_data(j.is_object(), "train options", "", "expected a JSON object");
  // A run's config.json reads as options: its format version and model type are checked here.
  const nlohmann::json body = run::strip_run_header(j, run::ModelType::Gnn, "train options");
  for (const auto& [key, value] : body.items()) {
    if (key == "data")
      read(value, key, o.data);
    else if (key == "valid_data")
      read(value, key, o.valid_data);
    else if (key == "collection")
      read(value, key, o.collection);
    else if (key == "split")
      read(value, key, o.split);
    else if (key == "valid_split")
      read(value, key, o.valid_split);
    else if (key == "exclude")
      read(value, key, o.exclude);
    else if (key == "skip_invalid")
      read(value, key, o.skip_invalid);
    else if (key == "iterations")
      read(value, key, o.iterations);
    else if (key == "graphs_per_batch")
      read(value, key, o.graphs_per_batch);
    else if (key == "slate_size")
      read(value, key, o.slate_size);
    else if (key == "loss")
      read(value, key, o.loss);
    else if (key == "optimizer")
      read(value, key, o.optimizer);
    else if (key == "lr")
      read(value, key, o.lr);
    else if (key == "weight_decay")
      read(value, key, o.weight_decay);
    else if (key == "decay_at")
      read(value, key, o.decay_at);
    else if (key == "grad_clip")
      read(value, key, o.grad_clip);
    else if (key == "log_every")
      read(value, key, o.log_every);
    else if (key == "validate_every")
      read(value, key, o.validate_every);
    else if (key == "valid_configs_per_graph")
      read(value, key, o.valid_configs_per_graph);
    else if (key == "valid_batch")
      read(value, key, o.valid_batch);
    else if (key == "valid_predictions_graphs")
      read(value, key, o.valid_predictions_graphs);
    else if (key == "checkpoint_every")
      read(value, key, o.checkpoint_every);
    else if (key == "seed")
      read(value, key, o.seed);
    else if (key == "threads")
      read(value, key, o.threads);
    else if (key == "share_rows")
      read(value, key, o.share_rows);
    else if (key == "prune_hops")
      read(value, key, o.prune_hops);
    else if (key == "prune_seeds")
      read(value, key, o.prune_seeds);
    else if (key == "gst_segment_nodes")
      read(value, key, o.gst_segment_nodes);
    else if (key == "gst_segments_per_step")
      read(value, key, o.gst_segments_per_step);
    else if (key == "gst_stale_dropout")
      read(value, key, o.gst_stale_dropout);
    else if (key == "gst_partition")
      read(value, key, o.gst_partition);
    else if (key == "swa_start")
      read(value, key, o.swa_start);
    else if (key == "swa_every")
      read(value, key, o.swa_every);
    else if (key == "model")
      model::from_json(value, o.model);
    else if (key == "world_size")
      ;  // config.json records how many processes trained the run; not an option
    else
      throw Error("train options", key, "unknown key");
  }
}

void check_train_options(const TrainOptions& o) {
  const char* where = "train options";
  check_data(o.iterations >= 0, where, "iterations", "must be >= 0");
  check_data(o.graphs_per_batch >= 1, where, "graphs_per_batch", "must be at least 1");
  check_data(o.slate_size >= 2, where, "slate_size", "must be at least 2 to rank");
  check_data(std::isfinite(o.lr) && o.lr > 0, where, "lr", "must be a positive number");
  check_data(std::isfinite(o.weight_decay) && o.weight_decay >= 0, where, "weight_decay",
             "must be a number >= 0");
  check_data(!std::isnan(o.grad_clip), where, "grad_clip", "must be a number (<= 0: off)");
  for (int64_t at : o.decay_at) check_data(at >= 0, where, "decay_at", "iterations must be >= 0");
  check_data(o.log_every >= 1, where, "log_every", "must be at least 1");
  check_data(o.validate_every >= 0, where, "validate_every", "must be >= 0 (0: only at the end)");
  check_data(o.checkpoint_every >= 0, where, "checkpoint_every",
             "must be >= 0 (0: only at the end)");
  check_data(o.valid_batch >= 1, where, "valid_batch", "must be at least 1");
  check_data(o.valid_predictions_graphs >= 0, where, "valid_predictions_graphs", "must be >= 0");
  check_data(o.prune_hops >= -1, where, "prune_hops", "must be >= 0, or -1 for no pruning");
  check_data(o.swa_start >= 0, where, "swa_start", "must be >= 0 (0: off)");
  check_data(o.swa_every >= 1, where, "swa_every", "must be at least 1");
}

}  // namespace graphcost::train
