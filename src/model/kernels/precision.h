// The precision of the model's products (parallel_matmul: the SAGE layers' and the configuration
// projections' GEMMs, forward and backward) for the whole process: fp32, or bf16 inputs with fp32
// accumulation (oneDNN's bf16 GEMM through LibTorch), the weights, their gradients' sums, the
// optimiser state, the aggregations and the loss staying fp32. Set once by a front-end
// (--precision), as the thread count is.
#pragma once

#include <torch/torch.h>

#include <string>

namespace graphcost::model {

enum class Precision { kFp32, kBf16 };

// "fp32" or "bf16"; an Error naming the valid ones otherwise.
Precision parse_precision(const std::string& name);
std::string precision_name(Precision precision);

// Whether this CPU multiplies bf16 natively (AVX512-BF16 or AMX-BF16 in /proc/cpuinfo's flags):
// without it oneDNN emulates bf16 products, slower than fp32.
bool cpu_has_bf16();

// x (float, any shape) rounded to bf16 (to nearest, ties to even, as LibTorch's conversion):
// with AVX512-BF16, 32 values an instruction over the intra-op threads (about 3x LibTorch's own
// conversion, which rounds one value at a time); else LibTorch's.
torch::Tensor to_bf16(const torch::Tensor& x);
// x (bf16) widened to float, exactly (a bf16 is a float's upper 16 bits), over the threads; the
// second form writes into out (float, contiguous, x's size).
torch::Tensor to_float(const torch::Tensor& x);
void to_float_out(const torch::Tensor& x, torch::Tensor& out);

// Sets the products' precision; bf16 where the CPU lacks it is an Error that says so.
void set_precision(Precision precision);
Precision precision();

}  // namespace graphcost::model
