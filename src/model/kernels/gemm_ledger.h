// A running count of the model's matrix products (issue #39, the FLOP accounting): how many
// multiply-adds each pass did and how long they took, so a run can say how much of its time is
// GEMM and how far its products are from this machine's GEMM peak (bench/flops.sh, docs/scale.md
// "FLOP accounting"). Counted where the products run: parallel_matmul (the SAGE layers' and
// the configuration projections' products, forward and both backward products) and its small
// products, which LibTorch runs as one matmul: their forward is timed; their backward runs in
// LibTorch's autograd, so its FLOPs are counted when the product is made (for each operand that
// needs a gradient) and its time is not known.
#pragma once

#include <cstdint>
#include <string>

namespace graphcost::model {

enum class GemmPass {
  kForward,         // x @ w^T through parallel_matmul's blocks
  kBackwardInput,   // grad @ w
  kBackwardWeight,  // grad^T @ x
  kSmallForward,    // a product under parallel_matmul's bound, run as one LibTorch matmul
  kSmallBackward,   // its backward products (FLOPs only: seconds stay 0)
};
constexpr int kGemmPasses = 5;

struct GemmTally {
  int64_t calls = 0;
  double flops = 0;    // 2 x multiply-adds
  double seconds = 0;  // thread-seconds inside the timed products (bf16 conversions included);
                       // products on several threads at once (slates apart) each count
};

// Adds one [m, k] x [k, n] product that took `seconds`. Thread-safe.
void record_gemm(GemmPass pass, int64_t m, int64_t k, int64_t n, double seconds);
// The tally since the last reset (or the start), per pass and over all.
GemmTally gemm_tally(GemmPass pass);
GemmTally gemm_total();
void reset_gemm_tallies();

// One line for a command's summary of a run of run_seconds on the intra-op threads set now:
// "GEMM 41.20 GFLOP, 32.0 GFLOP/s over the run (forward 13.70, backward 27.50 GFLOP, of which
// 0.40 in LibTorch's autograd, untimed); the timed products 0.55 thread-s of 2.60 (21%), 45.1
// GFLOP/s in them".
std::string gemm_summary(double run_seconds);

}  // namespace graphcost::model
