// bf16 products (model/kernels/precision.h): the names, and how far bf16 results are from fp32's.
// The tolerances follow from bf16's 8-bit significand: each operand is rounded to within 2^-9 of
// itself and the product to bf16 again, so a dot product of K random terms is off by about
// 2^-8 of its size; the tests allow 1e-2 relative (Frobenius) and require some difference, which
// shows that the bf16 path ran.
#include "model/kernels/precision.h"

#include <gtest/gtest.h>

#include <limits>

#include "../options_testing.h"
#include "../random_graph.h"
#include "core/error.h"
#include "model/forward/ranker.h"
#include "model/kernels/parallel_matmul.h"
#include "model/kernels/threads.h"

namespace graphcost::model {
namespace {

double relative_error(const torch::Tensor& got, const torch::Tensor& want) {
  return (got - want).norm().item<double>() / want.norm().item<double>();
}

TEST(Precision, NamesParseAndOthersAreAnError) {
  EXPECT_EQ(parse_precision("fp32"), Precision::kFp32);
  EXPECT_EQ(parse_precision("bf16"), Precision::kBf16);
  EXPECT_EQ(precision_name(Precision::kBf16), "bf16");
  EXPECT_EQ(precision_name(Precision::kFp32), "fp32");
  try {
    parse_precision("fp16");
    FAIL() << "fp16 parsed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown precision \"fp16\" (valid: fp32, bf16)");
  }
}

// Every test leaves the process at fp32 and its thread count, as it found them.
class Bf16 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu_has_bf16()) GTEST_SKIP() << "this CPU has neither AVX512-BF16 nor AMX-BF16";
    threads_ = at::get_num_threads();
    set_threads(3);  // three row blocks, also on a 2-core machine
  }
  void TearDown() override {
    set_precision(Precision::kFp32);
    if (threads_ > 0) set_threads(threads_);
  }
  int threads_ = 0;
};

// The vectorised conversions against LibTorch's: the same bits both ways, odd sizes and NaN too.
TEST_F(Bf16, ConversionsAreLibTorchsBitForBit) {
  torch::manual_seed(2);
  for (int64_t n : {0, 1, 31, 33, 100003}) {
    SCOPED_TRACE(n);
    torch::Tensor x = torch::randn({n}) * 1000;
    if (n > 10) {
      x[3] = std::numeric_limits<float>::quiet_NaN();
      x[4] = std::numeric_limits<float>::infinity();
      x[5] = 1.0f + 1.0f / 256;  // a tie: rounds to even (1.0)
    }
    const torch::Tensor ours = to_bf16(x), theirs = x.to(torch::kBFloat16);
    ASSERT_EQ(ours.scalar_type(), torch::kBFloat16);
    EXPECT_TRUE(torch::equal(ours.isnan(), theirs.isnan()));
    EXPECT_TRUE(torch::equal(ours.nan_to_num(0), theirs.nan_to_num(0)));
    EXPECT_TRUE(torch::equal(to_float(theirs).nan_to_num(0), theirs.to(torch::kFloat).nan_to_num(0)));
  }
  // A strided (transposed) input is read in its logical order.
  const torch::Tensor m = torch::randn({37, 41}).t();
  EXPECT_TRUE(torch::equal(to_bf16(m), m.to(torch::kBFloat16)));
}

TEST_F(Bf16, ProductsAndGradientsAreWithinTheRoundingOfFp32) {
  torch::manual_seed(5);
  // Large enough for three row blocks, and a small product (one block).
  for (const auto& [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{4000, 96, 64}, {7, 5, 3}}) {
    SCOPED_TRACE(m);
    const torch::Tensor x0 = torch::randn({m, k}), w0 = torch::randn({n, k});
    const torch::Tensor upstream = torch::randn({m, n});
    auto run = [&](Precision precision) {
      set_precision(precision);
      torch::Tensor x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
      const torch::Tensor y = parallel_matmul(x, w);
      (y * upstream).sum().backward();
      return std::tuple{y.detach(), x.grad(), w.grad()};
    };
    const auto [y32, gx32, gw32] = run(Precision::kFp32);
    const auto [y16, gx16, gw16] = run(Precision::kBf16);
    EXPECT_EQ(y16.scalar_type(), torch::kFloat);
    EXPECT_EQ(gw16.scalar_type(), torch::kFloat);
    for (const auto& [got, want] : {std::pair{y16, y32}, {gx16, gx32}, {gw16, gw32}}) {
      const double error = relative_error(got, want);
      EXPECT_LT(error, 1e-2);
      EXPECT_GT(error, 1e-5);  // rounded: the bf16 path ran
    }
  }
}

TEST_F(Bf16, RankerScoresAreWithinTheRoundingOfFp32) {
  torch::manual_seed(0);
  const data::Graph graph = testing::random_graph(64, 90, 4, 5, 10, 9, 3);
  const GraphTensors tensors = make_graph_tensors(graph);
  const Slate slate = testing::random_layout_slate(tensors, 16, 1);
  Ranker model(testing::small_model_options(data::ConfigKind::Layout));
  model->eval();
  torch::NoGradGuard no_grad;
  set_precision(Precision::kFp32);
  const torch::Tensor fp32 = model->forward(slate);
  set_precision(Precision::kBf16);
  const torch::Tensor bf16 = model->forward(slate);
  // The scores' spread over the slate is what ranking reads: bf16 moves them by a small part of it.
  const double spread = fp32.std().item<double>();
  ASSERT_GT(spread, 0);
  EXPECT_LT((bf16 - fp32).abs().max().item<double>(), 0.05 * spread);
  EXPECT_GT((bf16 - fp32).abs().max().item<double>(), 0.0);
}

TEST(Precision, Bf16WhereTheCpuLacksItIsAnErrorAndFp32AlwaysSets) {
  set_precision(Precision::kFp32);
  EXPECT_EQ(precision(), Precision::kFp32);
  if (cpu_has_bf16()) {
    set_precision(Precision::kBf16);
    EXPECT_EQ(precision(), Precision::kBf16);
    set_precision(Precision::kFp32);
  } else {
    EXPECT_THROW(set_precision(Precision::kBf16), Error);
    EXPECT_EQ(precision(), Precision::kFp32);
  }
}

}  // namespace
}  // namespace graphcost::model
