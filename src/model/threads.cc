#include "model/threads.h"

#include <omp.h>
#include <torch/torch.h>

#include <thread>

namespace graphcost::model {

int set_threads(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  torch::set_num_threads(threads);
  omp_set_num_threads(threads);
  return threads;
}

}  // namespace graphcost::model
