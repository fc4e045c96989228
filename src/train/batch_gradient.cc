#include "train/batch_gradient.h"

#include "core/error.h"
#include "model/threads.h"

namespace graphcost::train {

torch::Tensor mean_loss_and_gradient(int64_t num_slates, int workers,
                                     const std::function<torch::Tensor(int64_t)>& slate_loss,
                                     const std::vector<torch::Tensor>& parameters) {
  check_data(num_slates > 0, "training", "batch", "no slates to average the loss over");
  const auto count = static_cast<size_t>(num_slates);
  std::vector<torch::Tensor> losses(count);
  std::vector<std::vector<torch::Tensor>> gradients(count);
  model::run_on_workers(num_slates, workers, [&](int64_t i) {
    const auto slate = static_cast<size_t>(i);
    const torch::Tensor loss = slate_loss(i);
    losses[slate] = loss.detach();
    // The share of this slate in the mean, differentiated as the whole batch's mean would be.
    const torch::Tensor share = loss / static_cast<double>(num_slates);
    gradients[slate] = share.requires_grad()
                           ? torch::autograd::grad({share}, parameters, /*grad_outputs=*/{},
                                                   /*retain_graph=*/false, /*create_graph=*/false,
                                                   /*allow_unused=*/true)
                           : std::vector<torch::Tensor>(parameters.size());
  });
  torch::NoGradGuard no_grad;
  torch::Tensor total = torch::zeros({});
  for (const torch::Tensor& loss : losses) total = total + loss;
  for (size_t p = 0; p < parameters.size(); ++p) {
    torch::Tensor sum;
    for (const std::vector<torch::Tensor>& slate : gradients) {
      const torch::Tensor& g = slate[p];
      if (g.defined()) sum = sum.defined() ? sum + g : g;
    }
    if (!sum.defined()) continue;
    torch::Tensor& grad = parameters[p].mutable_grad();
    if (grad.defined()) {
      grad.add_(sum);
    } else {
      grad = sum.clone();
    }
  }
  return total / static_cast<double>(num_slates);
}

}  // namespace graphcost::train
