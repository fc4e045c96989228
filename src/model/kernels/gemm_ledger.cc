#include "model/kernels/gemm_ledger.h"

#include <ATen/Parallel.h>

#include <array>
#include <cstdio>
#include <mutex>

namespace graphcost::model {

namespace {

std::mutex ledger_mutex;
std::array<GemmTally, kGemmPasses> ledger;

}  // namespace

void record_gemm(GemmPass pass, int64_t m, int64_t k, int64_t n, double seconds) {
  const std::lock_guard<std::mutex> lock(ledger_mutex);
  GemmTally& t = ledger[static_cast<int>(pass)];
  ++t.calls;
  t.flops += 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
  t.seconds += seconds;
}

GemmTally gemm_tally(GemmPass pass) {
  const std::lock_guard<std::mutex> lock(ledger_mutex);
  return ledger[static_cast<int>(pass)];
}

GemmTally gemm_total() {
  const std::lock_guard<std::mutex> lock(ledger_mutex);
  GemmTally total;
  for (const GemmTally& t : ledger) {
    total.calls += t.calls;
    total.flops += t.flops;
    total.seconds += t.seconds;
  }
  return total;
}

void reset_gemm_tallies() {
  const std::lock_guard<std::mutex> lock(ledger_mutex);
  ledger.fill(GemmTally{});
}

std::string gemm_summary(double run_seconds) {
  const GemmTally total = gemm_total();
  const double forward =
      gemm_tally(GemmPass::kForward).flops + gemm_tally(GemmPass::kSmallForward).flops;
  const double untimed = gemm_tally(GemmPass::kSmallBackward).flops;
  const double backward = gemm_tally(GemmPass::kBackwardInput).flops +
                          gemm_tally(GemmPass::kBackwardWeight).flops + untimed;
  const double timed = total.flops - untimed;
  const double thread_seconds = run_seconds * at::get_num_threads();
  char line[400];
  std::snprintf(line, sizeof line,
                "GEMM %.2f GFLOP, %.1f GFLOP/s over the run (forward %.2f, backward %.2f GFLOP, "
                "of which %.2f in LibTorch's autograd, untimed); the timed products %.2f "
                "thread-s of %.2f (%.0f%%), %.1f GFLOP/s in them",
                total.flops / 1e9, run_seconds > 0 ? total.flops / 1e9 / run_seconds : 0.0,
                forward / 1e9, backward / 1e9, untimed / 1e9, total.seconds, thread_seconds,
                thread_seconds > 0 ? 100 * total.seconds / thread_seconds : 0.0,
                total.seconds > 0 ? timed / 1e9 / total.seconds : 0.0);
  return line;
}

}  // namespace graphcost::model
