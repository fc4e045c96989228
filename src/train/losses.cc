#include "train/losses.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "core/error.h"

namespace graphcost::train {

namespace {

void check_slate(const torch::Tensor& scores, const torch::Tensor& runtimes,
                 const std::string& loss) {
  check_data(scores.defined() && runtimes.defined(), "loss " + loss, "runtimes",
             "a slate needs scores and measured runtimes");
  check_data(scores.dim() == 1 && runtimes.dim() == 1 && scores.size(0) == runtimes.size(0),
             "loss " + loss, "shape",
             "scores and runtimes must both be [S] (got " + std::to_string(scores.dim()) +
                 "-d and " + std::to_string(runtimes.dim()) + "-d)");
}

std::vector<double> to_doubles(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

torch::Tensor index_tensor(const std::vector<int64_t>& values, const torch::Device& device) {
  return torch::tensor(values, torch::dtype(torch::kInt64)).to(device);
}

}  // namespace

torch::Tensor ListMleLoss::operator()(const torch::Tensor& scores,
                                      const torch::Tensor& runtimes) const {
  check_slate(scores, runtimes, name());
  if (scores.size(0) < 2) return scores.sum() * 0;
  // The likelihood is shift-invariant, so centring changes nothing but lets the clip look at
  // the spread of the scores rather than their offset.
  torch::Tensor s = scores - scores.mean();
  if (clip_ > 0) {
    torch::Tensor largest = s.abs().max();
    if (largest.item<double>() > clip_) s = s * (clip_ / largest);
  }
  const std::vector<double> r = to_doubles(runtimes);
  std::vector<int64_t> order(r.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return r[a] < r[b]; });
  // Plackett-Luce with utility -s: position i contributes logsumexp(u[i:]) - u[i].
  torch::Tensor u = -s.index_select(0, index_tensor(order, s.device()));
  torch::Tensor tail_lse = torch::logcumsumexp(u.flip(0), 0).flip(0);
  return (tail_lse - u).sum();
}

torch::Tensor PairwiseHingeLoss::operator()(const torch::Tensor& scores,
                                            const torch::Tensor& runtimes) const {
  check_slate(scores, runtimes, name());
  const std::vector<double> r = to_doubles(runtimes);
  std::vector<int64_t> slow, fast;
  for (size_t i = 0; i < r.size(); ++i) {
    for (size_t j = i + 1; j < r.size(); ++j) {
      if (r[i] == r[j]) continue;
      slow.push_back(static_cast<int64_t>(r[i] > r[j] ? i : j));
      fast.push_back(static_cast<int64_t>(r[i] > r[j] ? j : i));
    }
  }
  if (slow.empty()) return scores.sum() * 0;
  torch::Tensor gap = scores.index_select(0, index_tensor(slow, scores.device())) -
                      scores.index_select(0, index_tensor(fast, scores.device()));
  return torch::relu(margin_ - gap).mean();
}

torch::Tensor DiffMatLoss::operator()(const torch::Tensor& scores,
                                      const torch::Tensor& runtimes) const {
  check_slate(scores, runtimes, name());
  // The reference averages over the whole upper triangle, where tied pairs (target 0) add the
  // constant margin; leaving them out changes only the scale, not the gradient direction.
  torch::Tensor score_diff = scores.unsqueeze(1) - scores.unsqueeze(0);
  torch::Tensor runtime_diff = runtimes.unsqueeze(1) - runtimes.unsqueeze(0);
  torch::Tensor target = torch::sign(runtime_diff).to(scores.scalar_type());
  torch::Tensor mask =
      torch::triu(torch::ones_like(runtime_diff, torch::kBool), 1) & (runtime_diff != 0);
  const int64_t pairs = mask.sum().item<int64_t>();
  if (pairs == 0) return scores.sum() * 0;
  torch::Tensor per_pair = torch::relu(-target * score_diff + kMargin);
  return per_pair.masked_select(mask).sum() / static_cast<double>(pairs);
}

torch::Tensor MapeLoss::operator()(const torch::Tensor& scores,
                                   const torch::Tensor& runtimes) const {
  check_slate(scores, runtimes, name());
  if (scores.size(0) == 0) return scores.sum() * 0;
  const double fastest = runtimes.min().item<double>();
  check_data(fastest > 0, "loss mape", "runtimes",
             "runtimes must be positive to normalise by the fastest");
  torch::Tensor q = (runtimes / fastest).to(scores.scalar_type());
  return ((scores - q).abs() / q).mean();
}

void WeightedLoss::add(double weight, std::unique_ptr<Loss> loss) {
  terms_.emplace_back(weight, std::move(loss));
}

torch::Tensor WeightedLoss::operator()(const torch::Tensor& scores,
                                       const torch::Tensor& runtimes) const {
  torch::Tensor total = scores.sum() * 0;
  for (const auto& [weight, loss] : terms_) total = total + weight * (*loss)(scores, runtimes);
  return total;
}

std::string WeightedLoss::name() const {
  std::ostringstream out;
  for (size_t i = 0; i < terms_.size(); ++i) {
    out << (i ? "," : "") << terms_[i].second->name() << ":" << terms_[i].first;
  }
  return out.str();
}

bool WeightedLoss::shift_invariant() const {
  for (const auto& term : terms_) {
    if (term.first != 0 && !term.second->shift_invariant()) return false;
  }
  return true;
}

std::vector<std::string> loss_names() { return {"listmle", "hinge", "diffmat", "mape"}; }

std::unique_ptr<Loss> make_loss(const std::string& name) {
  if (name == "listmle") return std::make_unique<ListMleLoss>();
  if (name == "hinge") return std::make_unique<PairwiseHingeLoss>();
  if (name == "diffmat") return std::make_unique<DiffMatLoss>();
  if (name == "mape") return std::make_unique<MapeLoss>();
  std::string valid;
  for (const std::string& n : loss_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw Error("loss", name, "unknown loss; valid: " + valid);
}

std::unique_ptr<WeightedLoss> parse_loss_spec(const std::string& spec) {
  auto result = std::make_unique<WeightedLoss>();
  check_data(!spec.empty(), "loss spec", "",
             "no loss named (e.g. \"listmle\" or \"diffmat:1,mape:0.1\")");
  size_t begin = 0;
  while (begin <= spec.size()) {
    // Every comma separates two items, so "a," is an error (an empty name), not "a".
    const size_t end = std::min(spec.find(',', begin), spec.size());
    const std::string item = spec.substr(begin, end - begin);
    begin = end + 1;
    const size_t colon = item.find(':');
    const std::string name = item.substr(0, colon);
    double weight = 1.0;
    if (colon != std::string::npos) {
      const std::string text = item.substr(colon + 1);
      size_t used = 0;
      try {
        weight = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      check_data(used == text.size() && used > 0 && std::isfinite(weight),
                 "loss spec '" + spec + "'", name, "weight '" + text + "' is not a number");
    }
    result->add(weight, make_loss(name));
  }
  return result;
}

}  // namespace graphcost::train
