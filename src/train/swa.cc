#include "train/swa.h"

#include "core/error.h"

namespace graphcost::train {

WeightAverage::WeightAverage(int64_t start, int64_t every) : start_(start), every_(every) {
  check_data(start >= 0, "train options", "swa_start", "must be >= 0 (0 = off)");
  check_data(start == 0 || every >= 1, "train options", "swa_every", "must be >= 1");
}

bool WeightAverage::due(int64_t iteration) const {
  return enabled() && iteration >= start_ && (iteration - start_) % every_ == 0;
}

void WeightAverage::add(model::Ranker& model) {
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> parameters = model->parameters();
  // Sums in float64, so the average of many float32 snapshots loses nothing to rounding.
  if (sums_.empty()) {
    for (const auto& p : parameters) sums_.push_back(torch::zeros_like(p, torch::kFloat64));
  }
  check_data(sums_.size() == parameters.size(), "weight average", "parameters",
             "the model changed shape between snapshots");
  for (size_t i = 0; i < parameters.size(); ++i) sums_[i] += parameters[i].to(torch::kFloat64);
  ++count_;
}

void WeightAverage::copy_to(model::Ranker& model) const {
  check_data(count_ > 0, "weight average", "count", "no snapshots to average");
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> parameters = model->parameters();
  check_data(sums_.size() == parameters.size(), "weight average", "parameters",
             "does not match the model");
  for (size_t i = 0; i < parameters.size(); ++i)
    parameters[i].copy_(sums_[i] / static_cast<double>(count_));
}

void WeightAverage::save(torch::serialize::OutputArchive& archive) const {
  archive.write("swa_count", c10::IValue(count_));
  torch::serialize::OutputArchive sums;
  for (size_t i = 0; i < sums_.size(); ++i)
    sums.write("p" + std::to_string(i), sums_[i], /*is_buffer=*/true);
  archive.write("swa_sums", sums);
}

void WeightAverage::load(torch::serialize::InputArchive& archive, const std::string& where) {
  c10::IValue count;
  // Checkpoints written before averaging existed have no entry: nothing averaged yet.
  if (!archive.try_read("swa_count", count)) return;
  check_data(count.isInt() && count.toInt() >= 0, where, "swa_count", "not a count");
  torch::serialize::InputArchive sums;
  check_data(archive.try_read("swa_sums", sums), where, "swa_sums", "missing");
  sums_.clear();
  for (int64_t i = 0;; ++i) {
    torch::Tensor t;
    if (!sums.try_read("p" + std::to_string(i), t, /*is_buffer=*/true)) break;
    sums_.push_back(t);
  }
  count_ = count.toInt();
  check_data(count_ == 0 || !sums_.empty(), where, "swa_sums", "empty while swa_count > 0");
}

}  // namespace graphcost::train
