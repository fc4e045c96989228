#include "model/kernels/parallel_matmul.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/error.h"
#include "model/kernels/gemm_ledger.h"
#include "model/kernels/precision.h"

namespace graphcost::model {

namespace {

constexpr int64_t kSerialWork = 1 << 20;  // multiply-adds below which one call is faster

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Number of row blocks for an [m, k] x [k, n] product: one per thread, none under the bound.
int64_t row_blocks(int64_t m, int64_t k, int64_t n) {
  const int64_t threads = at::get_num_threads();
  if (threads <= 1 || m < 2 || m * k * n < kSerialWork) return 1;
  return std::min(threads, m);
}

// Whether the products of float operands run in bf16 (model/kernels/precision.h).
bool in_bf16(const torch::Tensor& a) {
  return a.scalar_type() == torch::kFloat && precision() == Precision::kBf16;
}

// out[m, n] = a[m, k] @ b, b being [k, n] (any strides). Row block t of `out` is computed by
// thread t. a, b and out must not require gradients: worker threads run in grad mode. In bf16 the
// operands are rounded to bf16 once, each block's product is oneDNN's (fp32 accumulation, bf16
// result) and the result is widened into out.
void rows_mm(const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out, GemmPass pass) {
  const Clock::time_point start = Clock::now();
  const int64_t m = a.size(0), blocks = row_blocks(m, a.size(1), b.size(1));
  const bool bf16 = in_bf16(a);
  const torch::Tensor a_in = bf16 ? to_bf16(a) : a;
  const torch::Tensor b_in = bf16 ? to_bf16(b) : b;
  torch::Tensor out_in = bf16 ? torch::empty(out.sizes(), a_in.options()) : out;
  if (blocks == 1) {
    at::mm_out(out_in, a_in, b_in);
  } else {
    at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t r0 = m * t / blocks, r1 = m * (t + 1) / blocks;
        torch::Tensor part = out_in.narrow(0, r0, r1 - r0);
        at::mm_out(part, a_in.narrow(0, r0, r1 - r0), b_in);
      }
    });
  }
  if (bf16) to_float_out(out_in, out);
  record_gemm(pass, m, a.size(1), b.size(1), seconds_since(start));
}

// a[m, n]^T @ b[m, k] = [n, k], the sum over row blocks of the blocks' products (in fp32; in bf16
// each block's product is rounded to bf16 before the fp32 sum).
torch::Tensor transposed_mm(const torch::Tensor& a, const torch::Tensor& b) {
  const Clock::time_point start = Clock::now();
  const int64_t m = a.size(0), blocks = row_blocks(m, a.size(1), b.size(1));
  const bool bf16 = in_bf16(a);
  const torch::Tensor a_in = bf16 ? to_bf16(a) : a;
  const torch::Tensor b_in = bf16 ? to_bf16(b) : b;
  // [n, m] x [m, k]: m is the reduced dimension.
  const auto tally = [&] {
    record_gemm(GemmPass::kBackwardWeight, a.size(1), m, b.size(1), seconds_since(start));
  };
  if (blocks == 1) {
    torch::Tensor product = at::mm(a_in.t(), b_in).to(a.scalar_type());
    tally();
    return product;
  }
  std::vector<torch::Tensor> partial(static_cast<size_t>(blocks));
  at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t r0 = m * t / blocks, r1 = m * (t + 1) / blocks;
      partial[t] = at::mm(a_in.narrow(0, r0, r1 - r0).t(), b_in.narrow(0, r0, r1 - r0))
                       .to(a.scalar_type());
    }
  });
  torch::Tensor sum = partial[0];
  for (int64_t t = 1; t < blocks; ++t) sum.add_(partial[t]);
  tally();
  return sum;
}

class ParallelMatmulFunction : public torch::autograd::Function<ParallelMatmulFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& w) {
    ctx->save_for_backward({x, w});
    const torch::Tensor rows = x.detach().reshape({-1, x.size(-1)}).contiguous();
    std::vector<int64_t> shape = x.sizes().vec();
    shape.back() = w.size(0);
    torch::Tensor out = torch::empty(shape, rows.options());
    torch::Tensor out_rows = out.view({rows.size(0), w.size(0)});
    rows_mm(rows, w.detach().t(), out_rows, GemmPass::kForward);
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor x = saved[0].detach(), w = saved[1].detach();
    const torch::Tensor grad = grad_outputs[0].detach().reshape({-1, w.size(0)}).contiguous();
    torch::Tensor grad_x, grad_w;
    if (ctx->needs_input_grad(0)) {
      grad_x = torch::empty({grad.size(0), w.size(1)}, grad.options());
      rows_mm(grad, w, grad_x, GemmPass::kBackwardInput);
      grad_x = grad_x.view(x.sizes());
    }
    if (ctx->needs_input_grad(1))
      grad_w = transposed_mm(grad, x.reshape({-1, x.size(-1)}).contiguous());
    return {grad_x, grad_w};
  }
};

}  // namespace

torch::Tensor parallel_matmul(const torch::Tensor& x, const torch::Tensor& w) {
  check_data(x.dim() >= 1 && w.dim() == 2 && x.size(-1) == w.size(1), "parallel_matmul", "shape",
             "expected x [..., K] and w [N, K]");
  check_data(x.scalar_type() == w.scalar_type(), "parallel_matmul", "dtype",
             "x and w must have the same dtype");
  // Small products run as one LibTorch matmul, except in bf16, which only the function below does.
  const int64_t rows = x.numel() == 0 ? 0 : x.numel() / x.size(-1);
  if (x.numel() == 0 || (!in_bf16(x) && row_blocks(rows, w.size(1), w.size(0)) == 1)) {
    const Clock::time_point start = Clock::now();
    torch::Tensor product = torch::matmul(x, w.t());
    record_gemm(GemmPass::kSmallForward, rows, w.size(1), w.size(0), seconds_since(start));
    if (torch::GradMode::is_enabled()) {  // LibTorch's backward: one product per gradient
      const int grads = (x.requires_grad() ? 1 : 0) + (w.requires_grad() ? 1 : 0);
      for (int g = 0; g < grads; ++g)
        record_gemm(GemmPass::kSmallBackward, rows, w.size(1), w.size(0), 0.0);
    }
    return product;
  }
  return ParallelMatmulFunction::apply(x, w);
}

torch::Tensor parallel_linear(const torch::Tensor& x, const torch::nn::Linear& layer) {
  torch::Tensor y = parallel_matmul(x, layer->weight);
  return layer->bias.defined() ? y + layer->bias : y;
}

}  // namespace graphcost::model
