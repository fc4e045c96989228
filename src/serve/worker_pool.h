// A fixed pool of scoring threads with a bounded queue: a request is scored on one of `workers`
// threads, waits for one if all are busy, and is refused at once when `max_queued` requests
// already wait, so load past capacity is answered (503) rather than queued without end.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace graphcost::serve {

class WorkerPool {
 public:
  // Starts `workers` threads (at least 1), each running thread_init once before any task.
  WorkerPool(int workers, int max_queued, const std::function<void()>& thread_init);
  ~WorkerPool();  // shutdown()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs task on a worker and waits for it, rethrowing what it throws. Returns false without
  // running it when the queue is full or the pool is shut down.
  bool run(const std::function<void()>& task);
  // Queues task to run on a worker and returns at once: false without queuing it when the queue
  // is full or the pool is shut down. What the task throws is dropped: it reports its own result.
  bool post(std::function<void()> task);
  // Tasks waiting or running now.
  int pending() const;
  // Finishes the tasks already queued, then stops the threads; later run() calls return false.
  void shutdown();

 private:
  void work(const std::function<void()>& thread_init);
  // Queues task unless the queue is full or the pool stopping; its future, or none.
  bool enqueue(std::packaged_task<void()> task, std::future<void>* done);
  int idle_workers_locked() const;  // threads not running a task; mutex_ held

  const int max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> queue_;
  int running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace graphcost::serve
