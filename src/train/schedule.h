// The optimiser and its learning-rate schedule: Adam or AdamW, a constant rate divided by
// sqrt(10) at each listed iteration, and gradient clipping by global norm.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace graphcost::train {

struct ScheduleOptions {
  std::string optimizer = "adam";  // "adam" or "adamw"
  double lr = 1e-3;
  double weight_decay = 0.0;
  std::vector<int64_t> decay_at;  // iterations from which the rate is divided by sqrt(10) once more
  double grad_clip = 1.0;         // largest global gradient norm; <= 0 disables clipping
};

// The learning rate in effect at iteration (0-based): lr * (1/sqrt(10))^k, k = the number of
// decay_at entries <= iteration.
double learning_rate_at(const ScheduleOptions& options, int64_t iteration);

// A new optimiser over parameters; an unknown optimiser name is an Error listing the valid ones.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(
    const std::vector<torch::Tensor>& parameters, const ScheduleOptions& options);

// Sets the learning rate of every parameter group (Adam and AdamW).
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

// One optimiser step at iteration: sets the scheduled rate, clips the gradients of parameters
// by global norm and steps. Returns the global gradient norm before clipping.
double optimizer_step(torch::optim::Optimizer& optimizer,
                      const std::vector<torch::Tensor>& parameters, const ScheduleOptions& options,
                      int64_t iteration);

}  // namespace graphcost::train
