#include "train/pairwise_loss.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace graphcost::train {
namespace {

TEST(PairwiseBceLoss, MatchesNaiveSumOverOrderedPairs) {
  torch::manual_seed(1);
  const torch::Tensor logits = torch::randn({5, 5}, torch::kFloat64) * 3;
  const torch::Tensor runtimes = torch::tensor({3.0, 1.0, 2.0, 1.0, 5.0}, torch::kFloat64);
  double sum = 0;
  int pairs = 0;
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      const double ri = runtimes[i].item<double>(), rj = runtimes[j].item<double>();
      if (i == j || ri == rj) continue;  // pairs (1, 3) and (3, 1) are tied
      const double p = 1.0 / (1.0 + std::exp(-logits[i][j].item<double>()));
      sum -= ri < rj ? std::log(p) : std::log(1 - p);
      ++pairs;
    }
  }
  ASSERT_EQ(pairs, 18);
  EXPECT_NEAR(pairwise_bce_loss(logits, runtimes).item<double>(), sum / pairs, 1e-12);
}

TEST(PairwiseBceLoss, AllTiedIsZeroWithAGradientAndWrongShapeIsAnError) {
  const torch::Tensor logits = torch::ones({3, 3}).requires_grad_();
  const torch::Tensor loss = pairwise_bce_loss(logits, torch::ones({3}, torch::kFloat64));
  EXPECT_EQ(loss.item<float>(), 0.0f);
  loss.backward();
  EXPECT_TRUE(torch::equal(logits.grad(), torch::zeros({3, 3})));
  EXPECT_THROW(pairwise_bce_loss(torch::zeros({2, 3}), torch::ones({3})), Error);
}

TEST(PairwiseBceLoss, PerfectConfidentOrderIsNearZero) {
  const torch::Tensor runtimes = torch::tensor({1.0, 2.0, 3.0}, torch::kFloat64);
  // logit(i, j) = 20 * (j - i): i faster than j exactly when i < j.
  const torch::Tensor position = torch::arange(3, torch::kFloat64);
  const torch::Tensor logits = (position.unsqueeze(0) - position.unsqueeze(1)) * 20;
  EXPECT_LT(pairwise_bce_loss(logits, runtimes).item<double>(), 1e-8);
  EXPECT_GT(pairwise_bce_loss(-logits, runtimes).item<double>(), 19.0);
}

}  // namespace
}  // namespace graphcost::train
