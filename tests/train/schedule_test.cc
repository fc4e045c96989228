#include "train/schedule.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace graphcost::train {
namespace {

TEST(Schedule, StepDecayByOneOverSqrtTen) {
  ScheduleOptions options;
  options.decay_at = {200, 100};  // order does not matter
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 0), 1e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 99), 1e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 100), 1e-3 / std::sqrt(10.0));  // 3.1623e-4
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 199), 1e-3 / std::sqrt(10.0));
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 200), 1e-4);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 1000000), 1e-4);
}

// Linear warm-up over 4 iterations, then a cosine from lr at iteration 4 to 0 at 104: at a
// quarter of the span cos(pi / 4) = sqrt(2) / 2, at half 0, at the end -1.
TEST(Schedule, WarmUpThenCosineToZeroAtTheLastIteration) {
  ScheduleOptions options;
  options.shape = "cosine";
  options.lr = 2e-3;
  options.warmup = 4;
  options.iterations = 104;
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 0), 0.5e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 1), 1e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 3), 2e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 4), 2e-3);
  EXPECT_NEAR(learning_rate_at(options, 29), 1e-3 * (1 + std::sqrt(2.0) / 2), 1e-15);
  EXPECT_NEAR(learning_rate_at(options, 54), 1e-3, 1e-15);
  EXPECT_NEAR(learning_rate_at(options, 79), 1e-3 * (1 - std::sqrt(2.0) / 2), 1e-15);
  EXPECT_NEAR(learning_rate_at(options, 104), 0.0, 1e-18);
  EXPECT_NEAR(learning_rate_at(options, 200), 0.0, 1e-18);  // past the end: stays at 0
  // The step shape warms up the same way, then keeps its decays.
  options.shape = "step";
  options.decay_at = {50};
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 2), 1.5e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 10), 2e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(options, 50), 2e-3 / std::sqrt(10.0));
}

TEST(Schedule, StepSetsTheScheduledRateAndClipsByGlobalNorm) {
  for (const std::string name : {"adam", "adamw"}) {
    ScheduleOptions options;
    options.optimizer = name;
    options.decay_at = {10};
    options.grad_clip = 1.0;
    torch::Tensor a = torch::zeros({1}, torch::requires_grad());
    torch::Tensor b = torch::zeros({1}, torch::requires_grad());
    auto optimizer = make_optimizer({a, b}, options);
    (3 * a + 4 * b).sum().backward();  // gradient (3, 4), global norm 5
    const double norm = optimizer_step(*optimizer, {a, b}, options, 15);
    EXPECT_DOUBLE_EQ(norm, 5.0);
    EXPECT_NEAR(a.grad().item<double>(), 0.6, 1e-6);
    EXPECT_NEAR(b.grad().item<double>(), 0.8, 1e-6);
    EXPECT_DOUBLE_EQ(optimizer->param_groups()[0].options().get_lr(), 1e-3 / std::sqrt(10.0));
    // Adam's first step moves every parameter by lr against its gradient's sign.
    EXPECT_NEAR(a.item<double>(), -1e-3 / std::sqrt(10.0), 1e-8);
  }
}

TEST(Schedule, UnknownOptimizerListsTheValidOnes) {
  ScheduleOptions options;
  options.optimizer = "sgd";
  torch::Tensor a = torch::zeros({1}, torch::requires_grad());
  try {
    make_optimizer({a}, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("adam, adamw"), std::string::npos);
  }
}

}  // namespace
}  // namespace graphcost::train
