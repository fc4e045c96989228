// The threads scoring runs on, for the front-ends (eval, predict, tune, serve, the Python
// module): LibTorch's intra-op pool and the OpenMP kernels, set by the model layer
// (model/kernels/threads.h). Plain declarations, no LibTorch.
#pragma once

#include <string>

namespace graphcost::infer {

// Sets the process's scoring threads; threads <= 0 means all cores. Returns the count in effect.
int set_threads(int threads);

// Sets the precision of the model's products for the process's scoring: "fp32" or "bf16"
// (model/kernels/precision.h); an Error for another name or for bf16 on a CPU without it.
void set_precision(const std::string& precision);

// Sets up a thread that scores requests (a server's worker): intra_op_threads LibTorch/OpenMP
// threads for it alone.
void configure_scoring_thread(int intra_op_threads);

}  // namespace graphcost::infer
