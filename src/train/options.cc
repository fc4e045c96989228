#include "train/options.h"

#include "core/error.h"

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
  try {
    out = value.get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("train options", key, std::string("wrong type: ") + e.what());
  }
}
}  // namespace

void from_json(const nlohmann::json& j, TrainOptions& o) {
  check_data(j.is_object(), "train options", "", "expected a JSON object");
  for (const auto& [key, value] : j.items()) {
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
    else
      throw Error("train options", key, "unknown key");
  }
}

}  // namespace graphcost::train
