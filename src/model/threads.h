// One place that sets the thread count of LibTorch's intra-op pool and of our OpenMP kernels.
#pragma once

namespace graphcost::model {

// threads <= 0 means all cores. Returns the count in effect.
int set_threads(int threads);

}  // namespace graphcost::model
