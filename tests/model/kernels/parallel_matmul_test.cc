#include "model/kernels/parallel_matmul.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "model/kernels/threads.h"

namespace graphcost::model {
namespace {

// Forward and both gradients of parallel_matmul against torch::matmul (one BLAS call), under a
// random upstream gradient, in double precision.
void expect_matches_matmul(std::vector<int64_t> x_shape, int64_t n) {
  torch::manual_seed(3);
  const int64_t k = x_shape.back();
  const torch::Tensor x0 = torch::randn(x_shape, torch::kDouble);
  const torch::Tensor w0 = torch::randn({n, k}, torch::kDouble);
  torch::Tensor x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
  torch::Tensor xr = x0.clone().requires_grad_(true), wr = w0.clone().requires_grad_(true);
  const torch::Tensor y = parallel_matmul(x, w), reference = torch::matmul(xr, wr.t());
  ASSERT_EQ(y.sizes(), reference.sizes());
  EXPECT_TRUE(torch::allclose(y, reference, 1e-12, 1e-10));
  const torch::Tensor upstream = torch::randn(reference.sizes(), torch::kDouble);
  (y * upstream).sum().backward();
  (reference * upstream).sum().backward();
  EXPECT_TRUE(torch::allclose(x.grad(), xr.grad(), 1e-12, 1e-10));
  EXPECT_TRUE(torch::allclose(w.grad(), wr.grad(), 1e-12, 1e-10));
}

class ParallelMatmul : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = at::get_num_threads();
    set_threads(3);  // three row blocks, also on a 2-core machine
  }
  void TearDown() override { set_threads(before_); }
  int before_ = 1;
};

TEST_F(ParallelMatmul, SplitRowsMatchOneMatmulForwardAndGradients) {
  expect_matches_matmul({37, 5, 160}, 200);  // 185 rows: uneven blocks of 61/62/62
  expect_matches_matmul({301, 120}, 90);     // 2-D input
}

TEST_F(ParallelMatmul, SmallAndDegenerateProductsMatchToo) {
  expect_matches_matmul({2, 3, 4}, 5);    // under the work bound: a single matmul
  expect_matches_matmul({1, 2000}, 700);  // one row: nothing to split
}

TEST_F(ParallelMatmul, LinearAddsTheBiasAndOnlyTheWeightNeedsAGradient) {
  torch::manual_seed(4);
  torch::nn::Linear layer(torch::nn::LinearOptions(64, 48));
  const torch::Tensor x = torch::randn({50, 9, 64});  // no gradient wanted for x
  const torch::Tensor y = parallel_linear(x, layer);
  EXPECT_TRUE(torch::allclose(y, layer->forward(x), 1e-5, 1e-5));
  y.sum().backward();
  const torch::Tensor grad = layer->weight.grad().clone();
  layer->zero_grad();
  layer->forward(x).sum().backward();
  EXPECT_TRUE(torch::allclose(grad, layer->weight.grad(), 1e-4, 1e-3));
}

TEST_F(ParallelMatmul, MismatchedShapesAreAnError) {
  EXPECT_THROW(parallel_matmul(torch::zeros({4, 3}), torch::zeros({5, 4})), Error);
  EXPECT_THROW(parallel_matmul(torch::zeros({4, 3}), torch::zeros({5, 3}, torch::kDouble)), Error);
}

}  // namespace
}  // namespace graphcost::model
