#include "model/kernels/threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <omp.h>
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

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

void run_on_workers(int64_t count, int workers, const std::function<void(int64_t)>& task) {
  if (count <= 0) return;
  const int64_t threads = std::min<int64_t>(std::max(workers, 1), count);
  if (threads == 1) {
    for (int64_t i = 0; i < count; ++i) task(i);
    return;
  }
  const bool grad_mode = torch::GradMode::is_enabled();
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&] {
    const OneIntraOpThread one_thread;  // this worker (only) at one intra-op thread
    torch::AutoGradMode grad_guard(grad_mode);
    while (!failed) {
      const int64_t i = next++;
      if (i >= count) break;
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int64_t t = 0; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the threads already started take every task
    }
  }
  if (pool.empty()) {  // none could start: the calling thread does them all, as with one worker
    for (int64_t i = 0; i < count; ++i) task(i);
    return;
  }
  for (std::thread& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

void run_apart(int64_t count, int workers, const std::function<void(int64_t)>& task) {
  if (std::min<int64_t>(std::max(workers, 1), count) > 1) {
    run_on_workers(count, workers, task);
    return;
  }
  const OneIntraOpThread one_thread;
  for (int64_t i = 0; i < count; ++i) task(i);
}

OneIntraOpThread::OneIntraOpThread() {
  // LibTorch sets a thread's OpenMP thread count to its global one on the thread's first parallel
  // call (a new worker's, say); make that call happen now, so it cannot undo ours later.
  at::get_num_threads();
  saved_ = omp_get_max_threads();
  omp_set_num_threads(1);
}

OneIntraOpThread::~OneIntraOpThread() { omp_set_num_threads(saved_); }

}  // namespace graphcost::model
