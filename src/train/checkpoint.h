// Checkpoints (resumable training state) and model files (final weights + options, what eval
// and predict load). Both are written to a temporary file and renamed into place.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "model/forward/ranker.h"
#include "train/gst.h"
#include "train/options.h"
#include "train/swa.h"

namespace graphcost::train {

struct CheckpointState {
  int64_t iteration = 0;   // iterations completed
  int64_t next_batch = 0;  // the sampler's next batch index
  TrainOptions options;    // the options the run was started with
};

// Writes model weights, optimiser state, the iteration, the sampler position, LibTorch's CPU
// random generator (dropout), the options and the weight average (when given) to path,
// atomically.
// The Graph Segment Training table goes in too when `segments` is given.
void save_checkpoint(const std::string& path, model::Ranker& model,
                     torch::optim::Optimizer& optimizer, const CheckpointState& state,
                     const WeightAverage* average = nullptr,
                     const SegmentTrainer* segments = nullptr);
// Reads the options stored in a checkpoint (to build a matching model and optimiser).
TrainOptions read_checkpoint_options(const std::string& path);
// Restores model, optimiser, the random generator, the weight average and the segment table
// (each when given) from path; returns the stored state. A missing or unreadable file is an
// Error naming it.
CheckpointState load_checkpoint(const std::string& path, model::Ranker& model,
                                torch::optim::Optimizer& optimizer,
                                WeightAverage* average = nullptr,
                                SegmentTrainer* segments = nullptr);


}  // namespace graphcost::train
