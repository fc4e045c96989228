#include "train/batch_gradient.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../model/options_testing.h"
#include "../model/random_graph.h"
#include "core/error.h"
#include "model/forward/ranker.h"
#include "model/kernels/threads.h"
#include "train/losses.h"

namespace graphcost::train {
namespace {

// Three graphs of different shapes, a slate of 5 configurations each, with runtimes.
class BatchGradientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model::set_threads(2);
    for (uint32_t seed : {3u, 4u, 5u}) {
      graphs.push_back(model::testing::random_graph(40 + 10 * seed, 70, 2, 5, 10, 7, seed));
    }
    for (const data::Graph& graph : graphs) tensors.push_back(model::make_graph_tensors(graph));
    for (size_t g = 0; g < tensors.size(); ++g) {
      model::Slate slate = model::testing::random_layout_slate(tensors[g], 5, 10 + g);
      slate.runtimes = torch::rand({5}, torch::kFloat64) + 1.0;
      slates.push_back(slate);
    }
    torch::manual_seed(1);
    net = model::Ranker(model::testing::small_model_options(data::ConfigKind::Layout));
    parameters = net->parameters();
  }
  torch::Tensor slate_loss(int64_t i) {
    const model::Slate& slate = slates[static_cast<size_t>(i)];
    return (*loss)(net->forward(slate, false), slate.runtimes);
  }
  std::vector<torch::Tensor> gradients() {
    std::vector<torch::Tensor> out;
    for (const torch::Tensor& p : parameters) out.push_back(p.grad().clone());
    return out;
  }
  // The parameters' gradients are close to expected (one backward of the batch mean) and, summed
  // in slate order, the same bits as the first worker count's (kept in *first).
  void expect_gradients(const std::vector<torch::Tensor>& expected,
                        std::vector<torch::Tensor>& first) {
    const std::vector<torch::Tensor> got = gradients();
    for (size_t p = 0; p < got.size(); ++p) {
      EXPECT_TRUE(torch::allclose(got[p], expected[p], 1e-4, 1e-6)) << "parameter " << p;
      if (!first.empty()) {
        EXPECT_TRUE(torch::equal(got[p], first[p])) << "parameter " << p;
      }
    }
    if (first.empty()) first = got;
  }
  void zero() {
    for (const torch::Tensor& p : parameters) {
      if (p.grad().defined()) p.mutable_grad().zero_();
    }
  }
  std::vector<data::Graph> graphs;
  std::vector<model::GraphTensors> tensors;
  std::vector<model::Slate> slates;
  std::unique_ptr<WeightedLoss> loss = parse_loss_spec("listmle:1,mape:0.1");
  model::Ranker net{nullptr};
  std::vector<torch::Tensor> parameters;
};

TEST_F(BatchGradientTest, MatchesOneBackwardOfTheMeanForAnyWorkerCount) {
  // The reference: every slate's loss in one graph, one backward of their mean.
  torch::Tensor total = torch::zeros({});
  for (int64_t i = 0; i < 3; ++i) total = total + slate_loss(i);
  total = total / 3.0;
  total.backward();
  const std::vector<torch::Tensor> expected = gradients();
  std::vector<torch::Tensor> one_worker;
  for (int workers : {1, 2, 3, 8}) {
    SCOPED_TRACE(workers);
    zero();
    const torch::Tensor mean =
        mean_loss_and_gradient(3, workers, [&](int64_t i) { return slate_loss(i); }, parameters);
    EXPECT_FALSE(mean.requires_grad());
    EXPECT_NEAR(mean.item<double>(), total.item<double>(), 1e-6 * std::abs(total.item<double>()));
    expect_gradients(expected, one_worker);
  }
}

// Many slates: a worker waits before starting slate i until slate i - 2 * workers has been
// added, so few gradients are held at once; the sum is still in slate order.
TEST_F(BatchGradientTest, ManySlatesAreAddedInOrderWithFewHeldAtOnce) {
  constexpr int64_t kSlates = 24;
  torch::Tensor total = torch::zeros({});
  for (int64_t i = 0; i < kSlates; ++i) total = total + slate_loss(i % 3);
  total = total / static_cast<double>(kSlates);
  zero();
  total.backward();
  const std::vector<torch::Tensor> expected = gradients();
  std::vector<torch::Tensor> one_worker;
  for (int workers : {1, 2, 3}) {
    SCOPED_TRACE(workers);
    zero();
    std::mutex mutex;
    std::vector<bool> finished(kSlates, false);
    bool started_too_early = false;
    const torch::Tensor mean = mean_loss_and_gradient(
        kSlates, workers,
        [&](int64_t i) {
          {
            std::lock_guard<std::mutex> lock(mutex);
            const int64_t must_be_done = i - 2 * workers;
            if (must_be_done >= 0 && !finished[must_be_done]) started_too_early = true;
          }
          // Slate 0 is slow, so without the wait the other workers would run far ahead of it.
          if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
          torch::Tensor loss = slate_loss(i % 3);
          std::lock_guard<std::mutex> lock(mutex);
          finished[i] = true;
          return loss;
        },
        parameters);
    EXPECT_FALSE(started_too_early);
    EXPECT_NEAR(mean.item<double>(), total.item<double>(), 1e-6 * std::abs(total.item<double>()));
    expect_gradients(expected, one_worker);
  }
}

// A slow slate that throws while later slates wait for it to be added: the error reaches the
// caller and nothing waits for ever.
TEST_F(BatchGradientTest, AnErrorWhileOthersWaitReachesTheCaller) {
  EXPECT_THROW(mean_loss_and_gradient(
                   24, 2,
                   [&](int64_t i) -> torch::Tensor {
                     if (i == 0) {
                       std::this_thread::sleep_for(std::chrono::milliseconds(50));
                       throw Error("slate 0: bad runtimes");
                     }
                     return slate_loss(i % 3);
                   },
                   parameters),
               Error);
}

TEST_F(BatchGradientTest, AddsToTheGradientsAlreadyThere) {
  zero();
  mean_loss_and_gradient(3, 2, [&](int64_t i) { return slate_loss(i); }, parameters);
  const std::vector<torch::Tensor> once = gradients();
  mean_loss_and_gradient(3, 2, [&](int64_t i) { return slate_loss(i); }, parameters);
  const std::vector<torch::Tensor> twice = gradients();
  for (size_t p = 0; p < once.size(); ++p) EXPECT_TRUE(torch::equal(twice[p], once[p] * 2));
}

TEST_F(BatchGradientTest, ASlatesErrorReachesTheCaller) {
  EXPECT_THROW(mean_loss_and_gradient(
                   3, 2,
                   [&](int64_t i) -> torch::Tensor {
                     if (i == 1) throw Error("slate 1: bad runtimes");
                     return slate_loss(i);
                   },
                   parameters),
               Error);
  EXPECT_THROW(mean_loss_and_gradient(0, 2, [&](int64_t i) { return slate_loss(i); }, parameters),
               Error);
}

TEST_F(BatchGradientTest, ALossWithoutParametersLeavesTheGradients) {
  zero();
  mean_loss_and_gradient(3, 2, [&](int64_t i) { return slate_loss(i); }, parameters);
  const std::vector<torch::Tensor> before = gradients();
  const torch::Tensor mean =
      mean_loss_and_gradient(2, 2, [](int64_t i) { return torch::tensor(2.0 * i); }, parameters);
  EXPECT_DOUBLE_EQ(mean.item<double>(), 1.0);
  const std::vector<torch::Tensor> after = gradients();
  for (size_t p = 0; p < before.size(); ++p) EXPECT_TRUE(torch::equal(after[p], before[p]));
}

}  // namespace
}  // namespace graphcost::train
