#include "model/threads.h"

#include <dlfcn.h>
#include <omp.h>
#include <torch/torch.h>

#include <thread>

namespace graphcost::model {

int set_threads(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  torch::set_num_threads(threads);
  omp_set_num_threads(threads);
  // LibTorch's OpenMP pool already spreads work over the cores; OpenBLAS's own thread pool on
  // top of it oversubscribes them and spins in sched_yield (measured: tile training 3.4x, layout
  // 1.5x slower on 2 cores). Looked up at run time: the symbol is there only with OpenBLAS.
  using SetBlasThreads = void (*)(int);
  if (auto set_blas = reinterpret_cast<SetBlasThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set_blas(1);
  }
  return threads;
}

}  // namespace graphcost::model
