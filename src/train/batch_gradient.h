// A batch's loss and gradient with its slates apart: the slates of a batch meet only in the mean
// of their losses, so each slate's forward and backward can run on a thread of its own.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace graphcost::train {

// The mean of slate_loss(0), ..., slate_loss(num_slates - 1), returned detached, with its gradient
// added to the parameters' gradients. Each slate's forward (slate_loss) and backward run on one of
// `workers` threads (model::run_on_workers), so a step holds one slate's activations per worker
// instead of every slate's at once, and at most 2 * workers slates' gradients: they are summed in
// slate order as soon as the earlier slates' are, so the result is the same for any number of
// workers, and the memory does not grow with the number of slates. slate_loss must be safe to call
// from several threads at once: no random draws (their order would depend on timing), no state kept
// between slates. share [first, end) (end < 0: num_slates) computes only those slates, each still
// weighted 1 / num_slates: the shares of a data-parallel step (dist/collectives.h) sum to the mean;
// an empty share adds nothing and returns 0. Thread-seconds of a step's slate work, by phase (#39's
// accounting; train's "phases" line).
struct SlatePhaseSeconds {
  double forward = 0;   // slate_loss: the forward pass and the loss
  double backward = 0;  // the slate's gradient (autograd)
  double summing = 0;   // adding finished slates' gradients in slate order, waits included
};

// phases: where to add this call's thread-seconds (null: not timed).
torch::Tensor mean_loss_and_gradient(int64_t num_slates, int workers,
                                     const std::function<torch::Tensor(int64_t)>& slate_loss,
                                     const std::vector<torch::Tensor>& parameters,
                                     std::pair<int64_t, int64_t> share = {0, -1},
                                     SlatePhaseSeconds* phases = nullptr);

}  // namespace graphcost::train
