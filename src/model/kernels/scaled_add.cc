#include "model/kernels/scaled_add.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GRAPHCOST_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GRAPHCOST_CLONES
#endif

namespace graphcost::model {

GRAPHCOST_CLONES void scaled_add(const float* x, double scale, double* acc, int64_t n) {
  for (int64_t c = 0; c < n; ++c) acc[c] += scale * static_cast<double>(x[c]);
}

GRAPHCOST_CLONES void scaled_add(const double* x, double scale, double* acc, int64_t n) {
  for (int64_t c = 0; c < n; ++c) acc[c] += scale * x[c];
}

}  // namespace graphcost::model
