#include "train/schedule.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "train/options.h"

namespace graphcost::train {

ScheduleOptions TrainOptions::schedule() const {
  ScheduleOptions s;
  s.optimizer = optimizer;
  s.lr = lr;
  s.weight_decay = weight_decay;
  s.decay_at = decay_at;
  s.grad_clip = grad_clip;
  s.shape = lr_schedule;
  s.warmup = warmup;
  s.iterations = iterations;
  return s;
}

double learning_rate_at(const ScheduleOptions& options, int64_t iteration) {
  if (iteration < options.warmup)
    return options.lr * static_cast<double>(iteration + 1) / static_cast<double>(options.warmup);
  if (options.shape == "cosine") {
    const int64_t span = options.iterations - options.warmup;
    if (span <= 0) return options.lr;
    const double t =
        std::min(1.0, static_cast<double>(iteration - options.warmup) / static_cast<double>(span));
    return options.lr * 0.5 * (1.0 + std::cos(M_PI * t));
  }
  int decays = 0;
  for (int64_t at : options.decay_at) decays += at <= iteration ? 1 : 0;
  // Computed from the count of decays, never accumulated, so a resumed run gets the same rate.
  return options.lr * std::pow(10.0, -0.5 * decays);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(
    const std::vector<torch::Tensor>& parameters, const ScheduleOptions& options) {
  if (options.optimizer == "adam") {
    return std::make_unique<torch::optim::Adam>(
        parameters, torch::optim::AdamOptions(options.lr).weight_decay(options.weight_decay));
  }
  if (options.optimizer == "adamw") {
    return std::make_unique<torch::optim::AdamW>(
        parameters, torch::optim::AdamWOptions(options.lr).weight_decay(options.weight_decay));
  }
  throw Error("optimizer", options.optimizer, "unknown optimizer; valid: adam, adamw");
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) {
    group.options().set_lr(lr);
  }
}

double optimizer_step(torch::optim::Optimizer& optimizer,
                      const std::vector<torch::Tensor>& parameters, const ScheduleOptions& options,
                      int64_t iteration) {
  set_learning_rate(optimizer, learning_rate_at(options, iteration));
  double norm = 0;
  if (options.grad_clip > 0) {
    norm = torch::nn::utils::clip_grad_norm_(parameters, options.grad_clip);
  } else {
    double squares = 0;
    for (const auto& p : parameters) {
      if (p.grad().defined()) squares += p.grad().pow(2).sum().item<double>();
    }
    norm = std::sqrt(squares);
  }
  optimizer.step();
  return norm;
}

}  // namespace graphcost::train
