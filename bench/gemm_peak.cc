// This machine's GEMM peak in fp32 and bf16, for the FLOP accounting of a step (docs/scale.md,
// FLOPs): the SAGE layers' product shape (rows x 3H by H: a node's own, operand and user sums
// side by side, H = 146 the default width), a configuration projection's, and a square one;
// each through LibTorch's at::mm on one thread and through parallel_matmul (the model's path,
// its rows split over the threads), forward only. bf16: operands already bf16 (the peak), and
// parallel_matmul's bf16 mode, which rounds fp32 operands and widens the result (what a step pays).
//   gemm_peak [--threads N] [--reps R]
// Prints `figure: gemm <path> <precision> <M>x<K>x<N>: <GFLOP/s> GFLOP/s` lines.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "model/kernels/parallel_matmul.h"
#include "model/kernels/precision.h"
#include "model/kernels/threads.h"

namespace {

// Median seconds of reps calls, after one warm-up call.
template <typename F>
double median_seconds(F&& f, int reps) {
  f();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace graphcost;
  int threads = 0, reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "gemm_peak: error: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  threads = model::set_threads(threads);
  torch::NoGradGuard no_grad;
  std::printf("figure: gemm threads: %d threads\n", threads);
  std::printf("figure: gemm cpu bf16: %d (1: AVX512-BF16 or AMX-BF16)\n",
              model::cpu_has_bf16() ? 1 : 0);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {200000, 438, 146}, {200000, 146, 438}, {2048, 2048, 2048}};
  for (const auto& [m, k, n] : shapes) {
    torch::manual_seed(1);
    const torch::Tensor x = torch::randn({m, k}), w = torch::randn({n, k});
    const torch::Tensor x16 = x.to(torch::kBFloat16), w16 = w.to(torch::kBFloat16);
    const double flop = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
    const std::string shape = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    auto report = [&](const char* path, const char* precision, double seconds) {
      std::printf("figure: gemm %s %s %s: %.1f GFLOP/s\n", path, precision, shape.c_str(),
                  flop / seconds / 1e9);
    };
    {
      model::OneIntraOpThread one;
      report("mm_1thread", "fp32", median_seconds([&] { at::mm(x, w.t()); }, reps));
      if (model::cpu_has_bf16())
        report("mm_1thread", "bf16", median_seconds([&] { at::mm(x16, w16.t()); }, reps));
    }
    model::set_precision(model::Precision::kFp32);
    report("parallel_matmul", "fp32", median_seconds([&] { model::parallel_matmul(x, w); }, reps));
    if (model::cpu_has_bf16()) {
      model::set_precision(model::Precision::kBf16);
      report("parallel_matmul", "bf16",
             median_seconds([&] { model::parallel_matmul(x, w); }, reps));
      model::set_precision(model::Precision::kFp32);
    }
  }
  return 0;
}
