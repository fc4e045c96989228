// Ranking losses over one slate: scores [S] are predicted costs (lower = faster) and runtimes
// [S] the measured times of the same configurations. Each loss returns a scalar tensor that
// autograd can differentiate with respect to the scores.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace graphcost::train {

class Loss {
 public:
  virtual ~Loss() = default;
  // The loss of one slate: a 0-dim tensor in the dtype of scores.
  virtual torch::Tensor operator()(const torch::Tensor& scores,
                                   const torch::Tensor& runtimes) const = 0;
  virtual std::string name() const = 0;
  // True when adding the same constant to every score leaves the loss unchanged (ranking
  // losses); then training may drop score terms shared by every configuration.
  virtual bool shift_invariant() const { return true; }
};

// ListMLE: the negative log Plackett-Luce likelihood (summed over positions) of the measured
// order, fastest first, where a lower score means more likely to come first. Tied runtimes keep
// their slate order. Scores are centred; when their largest absolute value exceeds `clip`
// (> 0) they are scaled down to it, which keeps the likelihood away from saturation.
class ListMleLoss : public Loss {
 public:
  explicit ListMleLoss(double clip = 100.0) : clip_(clip) {}
  torch::Tensor operator()(const torch::Tensor& scores,
                           const torch::Tensor& runtimes) const override;
  std::string name() const override { return "listmle"; }

 private:
  double clip_;
};

// Pairwise hinge: the mean over pairs with different runtimes of max(0, margin - (s_slow -
// s_fast)). Zero when there is no such pair.
class PairwiseHingeLoss : public Loss {
 public:
  explicit PairwiseHingeLoss(double margin = 0.1) : margin_(margin) {}
  torch::Tensor operator()(const torch::Tensor& scores,
                           const torch::Tensor& runtimes) const override;
  std::string name() const override { return "hinge"; }

 private:
  double margin_;
};

// DiffMat (2nd-place TpuGraphs solution): the matrices of pairwise differences of scores and of
// runtimes, upper triangle; a margin ranking loss with margin 0.01 of the score differences
// against zero with target sign(r_i - r_j): mean over pairs i < j with r_i != r_j of
// max(0, -sign(r_i - r_j) * (s_i - s_j) + 0.01). Zero when all runtimes are tied.
class DiffMatLoss : public Loss {
 public:
  static constexpr double kMargin = 0.01;
  torch::Tensor operator()(const torch::Tensor& scores,
                           const torch::Tensor& runtimes) const override;
  std::string name() const override { return "diffmat"; }
};

// MAPE against the runtimes normalised per slate by their minimum: with q = r / min(r),
// mean(|s - q| / q). Runtimes must be positive (an Error otherwise).
class MapeLoss : public Loss {
 public:
  torch::Tensor operator()(const torch::Tensor& scores,
                           const torch::Tensor& runtimes) const override;
  std::string name() const override { return "mape"; }
  bool shift_invariant() const override { return false; }  // compares absolute values
};

// A weighted sum of losses.
class WeightedLoss : public Loss {
 public:
  void add(double weight, std::unique_ptr<Loss> loss);
  torch::Tensor operator()(const torch::Tensor& scores,
                           const torch::Tensor& runtimes) const override;
  // The spec it came from, e.g. "diffmat:1,mape:0.1".
  std::string name() const override;
  bool shift_invariant() const override;  // when every term is
  size_t size() const { return terms_.size(); }

 private:
  std::vector<std::pair<double, std::unique_ptr<Loss>>> terms_;
};

// The names make_loss accepts.
std::vector<std::string> loss_names();
// A loss with default options by name; an unknown name is an Error listing the valid ones.
std::unique_ptr<Loss> make_loss(const std::string& name);
// Parses "name[:weight],name[:weight],..." (weight defaults to 1), e.g. "listmle" or
// "diffmat:1,mape:0.1"; a malformed spec or unknown name is an Error.
std::unique_ptr<WeightedLoss> parse_loss_spec(const std::string& spec);

}  // namespace graphcost::train
