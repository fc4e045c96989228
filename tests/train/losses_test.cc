#include "train/losses.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"

namespace graphcost::train {
namespace {

torch::Tensor f64(std::vector<double> v) { return torch::tensor(v, torch::kFloat64); }

double value(const Loss& loss, std::vector<double> scores, std::vector<double> runtimes) {
  return loss(f64(scores), f64(runtimes)).item<double>();
}

// The gradient of the loss with respect to the scores.
std::vector<double> gradient(const Loss& loss, std::vector<double> scores,
                             std::vector<double> runtimes) {
  torch::Tensor s = f64(scores).requires_grad_(true);
  loss(s, f64(runtimes)).backward();
  torch::Tensor g = s.grad();
  return std::vector<double>(g.data_ptr<double>(), g.data_ptr<double>() + g.numel());
}

TEST(ListMleLoss, ThreeConfigsInPredictedOrder) {
  // Measured order 0,1,2; utilities u = -s = [0, -1, -2].
  // position 0: log(1 + e^-1 + e^-2) - 0 = log(1.50321472) = 0.40760596
  // position 1: log(e^-1 + e^-2) + 1 = log(1 + e^-1) = 0.31326169; position 2: 0.
  EXPECT_NEAR(value(ListMleLoss(), {0, 1, 2}, {1, 2, 3}), 0.40760596444438 + 0.31326168751822,
              1e-12);
}

TEST(ListMleLoss, ThreeConfigsInReverseOrder) {
  // Measured order 2,1,0; u = [-2, -1, 0]: log(e^-2 + e^-1 + 1) + 2 = 2.40760596,
  // log(e^-1 + 1) + 1 = 1.31326169, 0.
  EXPECT_NEAR(value(ListMleLoss(), {0, 1, 2}, {3, 2, 1}), 2.40760596444438 + 1.31326168751822,
              1e-12);
}

TEST(ListMleLoss, TiedRuntimesKeepSlateOrder) {
  // Runtimes [2,1,3,1]: order 1,3,0,2 (the tie 1,3 in slate order); u = [0, 0, -0.5, -1].
  // position 0: log(2 + e^-0.5 + e^-1) = 1.09004573; position 1: log(1 + e^-0.5 + e^-1) =
  // 0.68026967; position 2: log(e^-0.5 + e^-1) + 0.5 = log(1 + e^-0.5) = 0.47407698; 3: 0.
  EXPECT_NEAR(value(ListMleLoss(), {0.5, 0, 1, 0}, {2, 1, 3, 1}), 2.2443923887411645, 1e-12);
}

TEST(ListMleLoss, ShiftInvariant) {
  EXPECT_NEAR(value(ListMleLoss(), {1000, 1001, 1002}, {1, 2, 3}),
              value(ListMleLoss(), {0, 1, 2}, {1, 2, 3}), 1e-9);
}

TEST(ListMleLoss, ClipScalesLargeScoresDown) {
  // Centred [-500, 500] is scaled to [-100, 100]; the wrong order costs log(e^-100 + e^100) + 100
  // = 200 (plus e^-200), not 1000 as unclipped.
  EXPECT_NEAR(value(ListMleLoss(100), {0, 1000}, {2, 1}), 200.0, 1e-9);
  EXPECT_NEAR(value(ListMleLoss(0), {0, 1000}, {2, 1}), 1000.0, 1e-9);
  EXPECT_NEAR(value(ListMleLoss(100), {0, 1000}, {1, 2}), 0.0, 1e-12);
}

TEST(ListMleLoss, MatchesNaivePlackettLuceOnRandomSlates) {
  torch::manual_seed(3);
  for (int trial = 0; trial < 20; ++trial) {
    torch::Tensor s = torch::randn({7}, torch::kFloat64) * 3;
    torch::Tensor r = torch::rand({7}, torch::kFloat64);
    std::vector<int64_t> order;
    // Naive: product over positions of exp(-s_pi(i)) / sum_{k >= i} exp(-s_pi(k)).
    std::vector<double> sv(s.data_ptr<double>(), s.data_ptr<double>() + 7);
    std::vector<double> rv(r.data_ptr<double>(), r.data_ptr<double>() + 7);
    for (int i = 0; i < 7; ++i) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return rv[a] < rv[b]; });
    double nll = 0;
    for (int i = 0; i < 7; ++i) {
      double denominator = 0;
      for (int k = i; k < 7; ++k) denominator += std::exp(-sv[order[k]]);
      nll -= std::log(std::exp(-sv[order[i]]) / denominator);
    }
    EXPECT_NEAR(ListMleLoss(0)(s, r).item<double>(), nll, 1e-9);
  }
}

TEST(PairwiseHingeLoss, ThreeConfigs) {
  // Pairs (fast, slow): (0,1) gap 0.05 -> 0.1 - 0.05 = 0.05; (0,2) gap 1 -> 0; (1,2) gap 0.95 -> 0.
  EXPECT_NEAR(value(PairwiseHingeLoss(0.1), {0, 0.05, 1}, {1, 2, 3}), 0.05 / 3, 1e-12);
}

TEST(PairwiseHingeLoss, TiesAreLeftOut) {
  // Runtimes [1,1,3]: pairs (0,2) gap 0.2 - 0.3 = -0.1 -> 0.2; (1,2) gap 0.2 -> 0; mean 0.1.
  EXPECT_NEAR(value(PairwiseHingeLoss(0.1), {0.3, 0, 0.2}, {1, 1, 3}), 0.1, 1e-12);
  EXPECT_EQ(value(PairwiseHingeLoss(0.1), {0.3, 0, 0.2}, {5, 5, 5}), 0.0);
}

TEST(DiffMatLoss, FourConfigs) {
  // All r_i < r_j for i < j, target -1: max(0, s_i - s_j + 0.01) over the 6 pairs:
  // (0,1) 0.005, (0,2) 0, (0,3) 0.21, (1,2) 0, (1,3) 0.215, (2,3) 0.71; sum 1.14, mean 0.19.
  EXPECT_NEAR(value(DiffMatLoss(), {0, 0.005, 0.5, -0.2}, {1, 2, 3, 4}), 0.19, 1e-12);
}

TEST(DiffMatLoss, TiesAreLeftOut) {
  // Runtimes [1,1,2]: pairs (0,2) max(0, 0 - 0.2 + 0.01) = 0, (1,2) 0.5 - 0.2 + 0.01 = 0.31; mean
  // 0.155.
  EXPECT_NEAR(value(DiffMatLoss(), {0, 0.5, 0.2}, {1, 1, 2}), 0.155, 1e-12);
  EXPECT_EQ(value(DiffMatLoss(), {0, 0.5, 0.2}, {2, 2, 2}), 0.0);
}

TEST(DiffMatLoss, EqualsHingeWithMarginOnePercentOnRandomSlates) {
  // Two independent formulations (difference matrix vs explicit pair list) of the same loss.
  torch::manual_seed(5);
  for (int trial = 0; trial < 20; ++trial) {
    torch::Tensor s = torch::randn({9}, torch::kFloat64) * 0.02;
    torch::Tensor r = torch::randint(0, 4, {9}, torch::kFloat64);
    EXPECT_NEAR(DiffMatLoss()(s, r).item<double>(), PairwiseHingeLoss(0.01)(s, r).item<double>(),
                1e-12);
  }
}

TEST(MapeLoss, NormalisedByFastest) {
  // q = [2,4,6] / 2 = [1,2,3]; |1-1|/1 = 0, |3-2|/2 = 0.5, |2.4-3|/3 = 0.2; mean 0.7/3.
  EXPECT_NEAR(value(MapeLoss(), {1, 3, 2.4}, {2, 4, 6}), 0.7 / 3, 1e-12);
  EXPECT_THROW(value(MapeLoss(), {1, 2}, {0, 4}), Error);
}

TEST(Losses, GradientsPushTheMisorderedPairApart) {
  // Config 0 is measured faster but scored slower: every ranking loss must lower s_0 and raise s_1.
  for (const std::string name : {"listmle", "hinge", "diffmat"}) {
    std::vector<double> g = gradient(*make_loss(name), {1, 0}, {1, 2});
    EXPECT_GT(g[0], 0) << name;
    EXPECT_LT(g[1], 0) << name;
  }
  std::vector<double> g = gradient(MapeLoss(), {2, 1}, {1, 2});  // q = [1, 2]: too high, too low
  EXPECT_GT(g[0], 0);
  EXPECT_LT(g[1], 0);
}

TEST(Losses, GradientOfListMleMatchesFiniteDifferences) {
  const std::vector<double> s = {0.3, -0.2, 0.9, 0.1};
  const std::vector<double> r = {3, 1, 4, 2};
  std::vector<double> g = gradient(ListMleLoss(), s, r);
  for (size_t i = 0; i < s.size(); ++i) {
    std::vector<double> up = s, down = s;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    EXPECT_NEAR(g[i], (value(ListMleLoss(), up, r) - value(ListMleLoss(), down, r)) / 2e-6, 1e-6);
  }
}

TEST(Losses, WeightedSumFromSpec) {
  auto loss = parse_loss_spec("diffmat:1,mape:0.1");
  EXPECT_EQ(loss->name(), "diffmat:1,mape:0.1");
  const double expected = value(DiffMatLoss(), {1, 3, 2.4}, {2, 4, 6}) +
                          0.1 * value(MapeLoss(), {1, 3, 2.4}, {2, 4, 6});
  EXPECT_NEAR(value(*loss, {1, 3, 2.4}, {2, 4, 6}), expected, 1e-12);
  EXPECT_NEAR(value(*parse_loss_spec("listmle"), {0, 1, 2}, {1, 2, 3}), 0.72086765196260, 1e-12);
}

TEST(Losses, BadSpecsNameTheProblem) {
  try {
    make_loss("lambdarank");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lambdarank"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("listmle, hinge, diffmat, mape"), std::string::npos);
  }
  EXPECT_THROW(parse_loss_spec("diffmat:x"), Error);
  EXPECT_THROW(parse_loss_spec("diffmat:1,"), Error);  // empty name after the comma
  EXPECT_THROW(parse_loss_spec(""), Error);
  EXPECT_THROW(ListMleLoss()(torch::zeros({3}), torch::zeros({4})), Error);
}

}  // namespace
}  // namespace graphcost::train
