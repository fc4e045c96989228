// The optimiser and its learning-rate schedule: Adam or AdamW; a linear warm-up, then a constant
// rate divided by sqrt(10) at each listed iteration ("step") or a cosine decay to zero at the last
// iteration ("cosine"; Loshchilov and Hutter 2017, SGDR, without restarts); gradient clipping by
// global norm.
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
  std::string shape = "step";     // "step" (decay_at) or "cosine"
  int64_t warmup = 0;             // iterations of linear warm-up from lr / warmup to lr
  int64_t iterations = 0;         // the run's length, where "cosine" reaches zero
};

// The learning rate in effect at iteration (0-based). During the warm-up (iteration < warmup):
// lr * (iteration + 1) / warmup. After it, "step": lr * (1/sqrt(10))^k, k = the number of
// decay_at entries <= iteration; "cosine": lr * (1 + cos(pi * t)) / 2 with t = (iteration -
// warmup) / (iterations - warmup), so the rate falls from lr after the warm-up to 0 at
// `iterations` (a resumed run given more iterations stretches the rest of its curve).
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
