// One place that sets the thread count of LibTorch's intra-op pool and of our OpenMP kernels, and
// one that runs independent pieces of work on threads of their own.
#pragma once

#include <cstdint>
#include <functional>

namespace graphcost::model {

// threads <= 0 means all cores. Returns the count in effect.
int set_threads(int threads);

// Runs task(i) for every i in [0, count) on min(workers, count) threads started for the call, each
// set to one intra-op thread (LibTorch's pool and our OpenMP kernels; OpenBLAS already has one),
// so `workers` independent pieces of work fill as many cores without oversubscribing them. Each
// thread takes the next index as it frees up, and runs with the caller's grad mode. With one
// worker (or one task) the tasks run on the calling thread in order, with its own intra-op
// threads. The first exception a task throws is rethrown here once every thread has stopped; the
// tasks not yet started are skipped.
void run_on_workers(int64_t count, int workers, const std::function<void(int64_t)>& task);

// As run_on_workers, but every task runs at one intra-op thread, also where the tasks run on the
// calling thread (one worker, or one task), whose own count is restored afterwards. For work
// whose result must not depend on the thread count (eval's, predict's and validation's scores):
// an intra-op split of a product rounds differently from one thread's sum, so a graph scored
// inline at 2 threads differed in its last bits from the same graph scored on a worker.
void run_apart(int64_t count, int workers, const std::function<void(int64_t)>& task);

// Holds the calling thread at one intra-op thread (LibTorch's pool and our OpenMP kernels) while
// it lives, and gives the thread back the count it had. For scoring on the calling thread as a
// run_apart worker would (run_apart itself, the Python module's single-graph scoring), and for
// run_on_workers' own workers.
class OneIntraOpThread {
 public:
  OneIntraOpThread();
  ~OneIntraOpThread();
  OneIntraOpThread(const OneIntraOpThread&) = delete;
  OneIntraOpThread& operator=(const OneIntraOpThread&) = delete;

 private:
  int saved_;
};

}  // namespace graphcost::model
