// The inner loop of the aggregation kernels: acc[c] += scale * x[c], accumulated in double.
#pragma once

#include <cstdint>

namespace graphcost::model {

// acc[c] += scale * x[c] for c in [0, n). On x86-64 it is compiled for AVX-512, AVX2 and the
// baseline the build targets, and the loader picks the clone the CPU runs: the rest of the build
// stays portable while these loops, a sixth of a layout training step, use the wide registers.
void scaled_add(const float* x, double scale, double* acc, int64_t n);
void scaled_add(const double* x, double scale, double* acc, int64_t n);

}  // namespace graphcost::model
