#include "model/kernels/gemm_ledger.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include "model/kernels/parallel_matmul.h"
#include "model/kernels/threads.h"

namespace graphcost::model {
namespace {

class GemmLedger : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = at::get_num_threads();
    reset_gemm_tallies();
  }
  void TearDown() override { set_threads(before_); }
  int before_ = 1;
};

// A product over parallel_matmul's bound on 3 threads: one forward, one backward product per
// gradient, each 2 x m x k x n FLOPs, and timed.
TEST_F(GemmLedger, CountsEveryProductOfABlockedMatmulAndItsBackward) {
  set_threads(3);
  const int64_t m = 600, k = 70, n = 50;  // 2.1 M multiply-adds: blocked
  const torch::Tensor x = torch::randn({2, m / 2, k}).requires_grad_(true);
  const torch::Tensor w = torch::randn({n, k}).requires_grad_(true);
  parallel_matmul(x, w).sum().backward();
  const double flops = 2.0 * m * k * n;
  for (GemmPass pass : {GemmPass::kForward, GemmPass::kBackwardInput, GemmPass::kBackwardWeight}) {
    const GemmTally t = gemm_tally(pass);
    EXPECT_EQ(t.calls, 1) << static_cast<int>(pass);
    EXPECT_EQ(t.flops, flops) << static_cast<int>(pass);
    EXPECT_GT(t.seconds, 0.0);
  }
  EXPECT_EQ(gemm_tally(GemmPass::kSmallForward).calls, 0);
  EXPECT_EQ(gemm_total().flops, 3 * flops);
  reset_gemm_tallies();
  EXPECT_EQ(gemm_total().calls, 0);
  EXPECT_EQ(gemm_total().flops, 0.0);
}

// A small product runs as one LibTorch matmul: its forward is timed, and one backward product
// per operand that needs a gradient is counted with no time; none without grad mode.
TEST_F(GemmLedger, CountsASmallProductsBackwardByTheGradientsItNeeds) {
  set_threads(1);
  const torch::Tensor x = torch::randn({4, 3}), w = torch::randn({5, 3}).requires_grad_(true);
  parallel_matmul(x, w);
  EXPECT_EQ(gemm_tally(GemmPass::kSmallForward).flops, 2.0 * 4 * 3 * 5);
  const GemmTally backward = gemm_tally(GemmPass::kSmallBackward);
  EXPECT_EQ(backward.calls, 1);  // w's gradient only
  EXPECT_EQ(backward.flops, 2.0 * 4 * 3 * 5);
  EXPECT_EQ(backward.seconds, 0.0);
  {
    torch::NoGradGuard no_grad;
    parallel_matmul(x, w);
  }
  EXPECT_EQ(gemm_tally(GemmPass::kSmallForward).calls, 2);
  EXPECT_EQ(gemm_tally(GemmPass::kSmallBackward).calls, 1);
}

}  // namespace
}  // namespace graphcost::model
