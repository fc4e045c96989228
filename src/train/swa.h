// Stochastic weight averaging (Izmailov et al., 2018): the mean of the weights at regular
// snapshots over the last part of training, used as the final model. It often ranks better than
// the last weights because it sits nearer the middle of a flat region of the loss.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/forward/ranker.h"

namespace graphcost::train {

class WeightAverage {
 public:
  // start: first iteration snapshotted (0 = averaging off); every: iterations between snapshots.
  // every < 1 while start > 0, or start < 0, is an Error.
  WeightAverage(int64_t start, int64_t every);
  bool enabled() const { return start_ > 0; }
  // True when the weights after `iteration` completed iterations are a snapshot: iteration >=
  // start and (iteration - start) divisible by every.
  bool due(int64_t iteration) const;
  // Adds the model's current parameters to the average.
  void add(model::Ranker& model);
  int64_t count() const { return count_; }
  // Overwrites the model's parameters with the average (an Error when nothing was added).
  void copy_to(model::Ranker& model) const;
  // Writes / reads the sums and the count (checkpoints); a missing or mismatched entry is an
  // Error naming `where`.
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive, const std::string& where);

 private:
  int64_t start_;
  int64_t every_;
  int64_t count_ = 0;
  std::vector<torch::Tensor> sums_;  // float64, one per parameter in parameters() order
};

}  // namespace graphcost::train
