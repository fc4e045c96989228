#include "model/kernels/precision.h"

#include <ATen/Parallel.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "core/error.h"

namespace graphcost::model {

namespace {

std::atomic<Precision> g_precision{Precision::kFp32};

constexpr int64_t kGrain = 1 << 16;  // values per task of the conversions

// One float to bf16, to nearest with ties to even (NaN stays NaN), as the instruction rounds.
uint16_t round_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

__attribute__((target("avx512f,avx512bf16"))) void round_block(const float* in, uint16_t* out,
                                                              int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512bh pair = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(in + i + 16), _mm512_loadu_ps(in + i));
    _mm512_storeu_si512(out + i, reinterpret_cast<__m512i>(pair));
  }
  for (; i < n; ++i) out[i] = round_to_bf16(in[i]);
}

__attribute__((target("avx512f"))) void widen_block(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    // The masked forms (every lane set): GCC 12 warns of the unmasked ones' undefined start.
    const __m512i wide = _mm512_maskz_cvtepu16_epi32(
        0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    _mm512_storeu_si512(out + i, _mm512_maskz_slli_epi32(0xffff, wide, 16));
  }
  for (; i < n; ++i) {
    const uint32_t bits = static_cast<uint32_t>(in[i]) << 16;
    std::memcpy(out + i, &bits, sizeof bits);
  }
}

// Whether /proc/cpuinfo's first flags line lists flag (read once).
bool cpu_flag(const std::string& wanted) {
  static const std::vector<std::string> flags = [] {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      if (line.rfind("flags", 0) != 0) continue;
      std::istringstream words(line.substr(line.find(':') + 1));
      return std::vector<std::string>(std::istream_iterator<std::string>(words),
                                      std::istream_iterator<std::string>());
    }
    return std::vector<std::string>();
  }();
  return std::find(flags.begin(), flags.end(), wanted) != flags.end();
}

// The vectorised conversions use AVX512-BF16's instruction (AMX-BF16 alone is not enough).
bool vector_conversions() { return cpu_flag("avx512_bf16"); }

}  // namespace

Precision parse_precision(const std::string& name) {
  if (name == "fp32") return Precision::kFp32;
  if (name == "bf16") return Precision::kBf16;
  throw Error("unknown precision \"" + name + "\" (valid: fp32, bf16)");
}

std::string precision_name(Precision precision) {
  return precision == Precision::kBf16 ? "bf16" : "fp32";
}


bool cpu_has_bf16() { return cpu_flag("avx512_bf16") || cpu_flag("amx_bf16"); }

torch::Tensor to_bf16(const torch::Tensor& x) {
  if (!vector_conversions() || x.scalar_type() != torch::kFloat) return x.to(torch::kBFloat16);
  const torch::Tensor in = x.contiguous();
  torch::Tensor out = torch::empty(in.sizes(), in.options().dtype(torch::kBFloat16));
  const float* from = in.data_ptr<float>();
  uint16_t* to = reinterpret_cast<uint16_t*>(out.data_ptr());
  at::parallel_for(0, in.numel(), kGrain, [&](int64_t begin, int64_t end) {
    round_block(from + begin, to + begin, end - begin);
  });
  return out;
}

void to_float_out(const torch::Tensor& x, torch::Tensor& out) {
  if (!vector_conversions() || x.scalar_type() != torch::kBFloat16 || !out.is_contiguous() ||
      out.scalar_type() != torch::kFloat) {
    out.copy_(x);
    return;
  }
  check_data(out.numel() == x.numel(), "to_float_out", "size", "out must have x's size");
  const torch::Tensor in = x.contiguous();
  const uint16_t* from = reinterpret_cast<const uint16_t*>(in.data_ptr());
  float* to = out.data_ptr<float>();
  at::parallel_for(0, in.numel(), kGrain, [&](int64_t begin, int64_t end) {
    widen_block(from + begin, to + begin, end - begin);
  });
}

torch::Tensor to_float(const torch::Tensor& x) {
  torch::Tensor out = torch::empty(x.sizes(), x.options().dtype(torch::kFloat));
  to_float_out(x, out);
  return out;
}

void set_precision(Precision precision) {
  if (precision == Precision::kBf16 && !cpu_has_bf16()) {
    throw Error("--precision bf16: this CPU has neither AVX512-BF16 nor AMX-BF16 (the flags "
                "avx512_bf16, amx_bf16 in /proc/cpuinfo), so bf16 products would be emulated "
                "and slower than fp32; use --precision fp32");
  }
  g_precision.store(precision);
}

Precision precision() { return g_precision.load(); }

}  // namespace graphcost::model
