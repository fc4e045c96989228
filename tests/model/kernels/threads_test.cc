#include "model/kernels/threads.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <torch/torch.h>

namespace graphcost::model {
namespace {

TEST(Threads, SetsTorchAndOpenMp) {
  EXPECT_EQ(set_threads(2), 2);
  EXPECT_EQ(torch::get_num_threads(), 2);
  EXPECT_EQ(omp_get_max_threads(), 2);
  EXPECT_EQ(set_threads(1), 1);
  EXPECT_EQ(torch::get_num_threads(), 1);
  EXPECT_GE(set_threads(0), 1);
}

}  // namespace
}  // namespace graphcost::model

#include <dlfcn.h>

namespace graphcost::model {
namespace {

TEST(Threads, OpenBlasKeepsOneThreadUnderLibTorchsPool) {
  using GetBlasThreads = int (*)();
  auto get = reinterpret_cast<GetBlasThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (!get) GTEST_SKIP() << "LibTorch is not linked against OpenBLAS here";
  set_threads(2);
  EXPECT_EQ(get(), 1);
}

}  // namespace
}  // namespace graphcost::model

#include <ATen/Parallel.h>

#include <array>
#include <chrono>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace graphcost::model {
namespace {

TEST(RunOnWorkers, EveryTaskOnceOnWorkersOfOneIntraOpThread) {
  set_threads(2);
  std::array<std::atomic<int>, 9> runs{};
  std::atomic<int> wider{0};
  std::mutex mutex;
  std::set<std::thread::id> workers;
  run_on_workers(9, 2, [&](int64_t i) {
    ++runs[static_cast<size_t>(i)];
    if (at::get_num_threads() != 1 || omp_get_max_threads() != 1) ++wider;
    // LibTorch's parallel loops stay on the worker itself.
    std::set<std::thread::id> loop_threads;
    std::mutex loop_mutex;
    at::parallel_for(0, 1 << 16, 1, [&](int64_t, int64_t) {
      std::lock_guard<std::mutex> lock(loop_mutex);
      loop_threads.insert(std::this_thread::get_id());
    });
    EXPECT_EQ(loop_threads, std::set<std::thread::id>{std::this_thread::get_id()});
    std::lock_guard<std::mutex> lock(mutex);
    workers.insert(std::this_thread::get_id());
  });
  for (const auto& count : runs) EXPECT_EQ(count, 1);
  EXPECT_EQ(wider, 0);
  EXPECT_EQ(workers.count(std::this_thread::get_id()), 0u);
  EXPECT_LE(workers.size(), 2u);
  // The caller keeps its own thread count.
  EXPECT_EQ(torch::get_num_threads(), 2);
  EXPECT_EQ(omp_get_max_threads(), 2);
}

TEST(RunOnWorkers, OneWorkerRunsInOrderOnTheCaller) {
  set_threads(2);
  std::vector<int64_t> order;
  run_on_workers(4, 1, [&](int64_t i) {
    EXPECT_EQ(at::get_num_threads(), 2);  // the caller's intra-op threads
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3}));
  order.clear();
  run_on_workers(1, 4, [&](int64_t i) { order.push_back(i); });  // one task: no thread
  EXPECT_EQ(order, (std::vector<int64_t>{0}));
  run_on_workers(0, 4, [&](int64_t) { ADD_FAILURE() << "no task to run"; });
}

TEST(RunOnWorkers, RethrowsATasksErrorAfterEveryWorkerStops) {
  // Every other task takes 10 ms, so starting all 200 would take the other worker about 2 s; the
  // failure stops it within one task.
  std::atomic<int> started{0};
  EXPECT_THROW(run_on_workers(200, 2,
                              [&](int64_t i) {
                                ++started;
                                if (i == 2) throw std::runtime_error("task 2 failed");
                                std::this_thread::sleep_for(std::chrono::milliseconds(10));
                              }),
               std::runtime_error);
  EXPECT_LT(started, 200);  // the tasks not yet started were skipped
}

TEST(RunOnWorkers, WorkersRunInTheCallersGradMode) {
  std::atomic<int> enabled{0};
  {
    torch::NoGradGuard no_grad;
    run_on_workers(4, 2, [&](int64_t) { enabled += torch::GradMode::is_enabled(); });
  }
  EXPECT_EQ(enabled, 0);
  run_on_workers(4, 2, [&](int64_t) { enabled += torch::GradMode::is_enabled(); });
  EXPECT_EQ(enabled, 4);
}

TEST(RunApart, OneTaskRunsOnTheCallerAtOneIntraOpThreadThenRestoresIt) {
  set_threads(2);
  std::thread::id ran_on;
  run_apart(1, 4, [&](int64_t) {
    ran_on = std::this_thread::get_id();
    EXPECT_EQ(at::get_num_threads(), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);
  });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(omp_get_max_threads(), 2);
  // Also when the task throws.
  EXPECT_THROW(run_apart(1, 1, [](int64_t) { throw std::runtime_error("task failed"); }),
               std::runtime_error);
  EXPECT_EQ(omp_get_max_threads(), 2);
  EXPECT_EQ(at::get_num_threads(), 2);
}

TEST(OneIntraOpThread, HoldsOneThreadWhileItLivesAndRestoresTheCount) {
  set_threads(3);
  {
    const OneIntraOpThread one;
    EXPECT_EQ(at::get_num_threads(), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);
    {
      const OneIntraOpThread nested;  // a nested guard restores the one it found
      EXPECT_EQ(omp_get_max_threads(), 1);
    }
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
  EXPECT_EQ(at::get_num_threads(), 3);
  EXPECT_EQ(omp_get_max_threads(), 3);
  set_threads(2);
}

}  // namespace
}  // namespace graphcost::model
