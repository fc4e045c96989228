#include "serve/worker_pool.h"

#include <algorithm>

namespace graphcost::serve {

WorkerPool::WorkerPool(int workers, int max_queued, const std::function<void()>& thread_init)
    : max_queued_(std::max(0, max_queued)) {
  for (int i = 0; i < std::max(1, workers); ++i)
    threads_.emplace_back([this, thread_init] { work(thread_init); });
}

WorkerPool::~WorkerPool() { shutdown(); }

bool WorkerPool::run(const std::function<void()>& task) {
  std::future<void> done;
  if (!enqueue(std::packaged_task<void()>(task), &done)) return false;
  done.get();  // rethrows the task's exception
  return true;
}

bool WorkerPool::post(std::function<void()> task) {
  return enqueue(std::packaged_task<void()>(std::move(task)), nullptr);
}

bool WorkerPool::enqueue(std::packaged_task<void()> task, std::future<void>* done) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || static_cast<int>(queue_.size()) >= max_queued_ + idle_workers_locked())
      return false;
    if (done) *done = task.get_future();
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

int WorkerPool::idle_workers_locked() const {
  return static_cast<int>(threads_.size()) - running_;
}

int WorkerPool::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(queue_.size()) + running_;
}

void WorkerPool::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void WorkerPool::work(const std::function<void()>& thread_init) {
  if (thread_init) thread_init();
  for (;;) {
    std::packaged_task<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to finish
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    task();  // an exception is stored in the task's future
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
  }
}

}  // namespace graphcost::serve
