// Scoring every configuration of a graph with a trained ranker, in slates, without gradients.
#pragma once

#include <cstdint>
#include <vector>

#include "data/configs.h"
#include "model/forward/ranker.h"
#include "model/forward/segments.h"

namespace graphcost::model {

// Puts the ranker in training mode (MC dropout) or eval mode for a scope and back after it,
// touching the mode only when it differs. Scoring runs on several graphs at once
// (cli::score_collection, train::validate) with the ranker already in eval mode; a write of the
// mode there, even of the same value, would be a data race between the threads.
class RankerModeGuard {
 public:
  RankerModeGuard(Ranker& ranker, bool training)
      : ranker_(ranker), was_training_(ranker->is_training()), changed_(was_training_ != training) {
    if (changed_) ranker_->train(training);
  }
  ~RankerModeGuard() {
    if (changed_) ranker_->train(was_training_);
  }
  RankerModeGuard(const RankerModeGuard&) = delete;
  RankerModeGuard& operator=(const RankerModeGuard&) = delete;

 private:
  Ranker& ranker_;
  bool was_training_;
  bool changed_;
};

// config_indices, or every configuration index 0..count-1 when it is empty (the convention of
// the scoring functions here and in tta.h, uncertainty.h, pairwise_scoring.h).
std::vector<int64_t> listed_or_all(const std::vector<int64_t>& config_indices, int64_t count);

// Scores (predicted costs, lower = faster) of the listed configurations, or of all of them
// when config_indices is empty; evaluated slate_size configurations at a time. With segments
// (a model trained by segments, ModelOptions::segment_nodes > 0) a score is the sum over them.
std::vector<double> score_configs(Ranker& ranker, const GraphTensors& graph,
                                  const data::ConfigView& configs,
                                  const std::vector<int64_t>& config_indices = {},
                                  int64_t slate_size = 256,
                                  const SegmentedGraph* segments = nullptr);

}  // namespace graphcost::model
