#include "train/batch_gradient.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <utility>

#include "core/error.h"
#include "model/kernels/threads.h"

namespace graphcost::train {

torch::Tensor mean_loss_and_gradient(int64_t num_slates, int workers,
                                     const std::function<torch::Tensor(int64_t)>& slate_loss,
                                     const std::vector<torch::Tensor>& parameters,
                                     std::pair<int64_t, int64_t> share, SlatePhaseSeconds* phases) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  check_data(num_slates > 0, "training", "batch", "no slates to average the loss over");
  const int64_t first = share.first;
  const int64_t end = share.second < 0 ? num_slates : share.second;
  if (end <= first) return torch::zeros({});
  // Slates finish in any order, but their gradients are added in slate order as soon as every
  // earlier slate's are: a finished slate waits in `pending` until then. A worker starts slate i
  // only once i < added + window, so at most `window` slates' gradients are held at once however
  // many slates the batch has (held until the end, they grew the step's memory with the batch:
  // 3 GB at 2,000 slates of AlexNet).
  const int64_t window = 2 * std::max(workers, 1);
  std::mutex mutex;
  std::condition_variable may_start;
  int64_t added = 0;
  bool failed = false;
  std::map<int64_t, std::pair<torch::Tensor, std::vector<torch::Tensor>>> pending;
  torch::Tensor total;
  std::vector<torch::Tensor> sums(parameters.size());
  model::run_on_workers(end - first, workers, [&](int64_t i) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      may_start.wait(lock, [&] { return i < added + window || failed; });
      if (failed) return;  // an earlier slate threw: run_on_workers rethrows its error
    }
    torch::Tensor loss;
    std::vector<torch::Tensor> gradients;
    double forward_seconds = 0, backward_seconds = 0;
    try {
      const Clock::time_point start = Clock::now();
      loss = slate_loss(first + i);
      forward_seconds = since(start);
      const Clock::time_point backward_start = Clock::now();
      // The share of this slate in the mean, differentiated as the whole batch's mean would be.
      const torch::Tensor weighted = loss / static_cast<double>(num_slates);
      gradients = weighted.requires_grad()
                      ? torch::autograd::grad({weighted}, parameters, /*grad_outputs=*/{},
                                              /*retain_graph=*/false, /*create_graph=*/false,
                                              /*allow_unused=*/true)
                      : std::vector<torch::Tensor>(parameters.size());
      backward_seconds = since(backward_start);
    } catch (...) {
      // Slates waiting for this one to be added would wait for ever: wake them to stop.
      std::lock_guard<std::mutex> lock(mutex);
      failed = true;
      may_start.notify_all();
      throw;
    }
    torch::NoGradGuard no_grad;
    const Clock::time_point summing_start = Clock::now();
    std::lock_guard<std::mutex> lock(mutex);
    pending.emplace(i, std::make_pair(loss.detach(), std::move(gradients)));
    for (auto next = pending.find(added); next != pending.end(); next = pending.find(added)) {
      const torch::Tensor& slate_total = next->second.first;
      total = total.defined() ? total + slate_total : torch::zeros({}) + slate_total;
      for (size_t p = 0; p < parameters.size(); ++p) {
        const torch::Tensor& g = next->second.second[p];
        if (g.defined()) sums[p] = sums[p].defined() ? sums[p] + g : g;
      }
      pending.erase(next);
      ++added;
    }
    if (phases != nullptr) {  // under the lock
      phases->forward += forward_seconds;
      phases->backward += backward_seconds;
      phases->summing += since(summing_start);
    }
    may_start.notify_all();
  });
  torch::NoGradGuard no_grad;
  for (size_t p = 0; p < parameters.size(); ++p) {
    if (!sums[p].defined()) continue;
    torch::Tensor& grad = parameters[p].mutable_grad();
    if (grad.defined()) {
      grad.add_(sums[p]);
    } else {
      grad = sums[p].clone();
    }
  }
  return total / static_cast<double>(num_slates);
}

}  // namespace graphcost::train
