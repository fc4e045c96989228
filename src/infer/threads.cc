#include "infer/threads.h"

#include <ATen/Parallel.h>
#include <omp.h>

#include <algorithm>

#include "model/kernels/precision.h"
#include "model/kernels/threads.h"

namespace graphcost::infer {

int set_threads(int threads) { return model::set_threads(threads); }

void set_precision(const std::string& precision) {
  model::set_precision(model::parse_precision(precision));
}

void configure_scoring_thread(int intra_op_threads) {
  // LibTorch sets a new thread's OpenMP count to its global one on the thread's first parallel
  // call: make that call now, then set this thread's own count (as model::run_on_workers does).
  at::get_num_threads();
  omp_set_num_threads(std::max(1, intra_op_threads));
}

}  // namespace graphcost::infer
