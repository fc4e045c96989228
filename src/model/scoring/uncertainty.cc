#include "model/scoring/uncertainty.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "core/error.h"
#include "model/scoring/predict.h"

namespace graphcost::model {

namespace {

// Seeds LibTorch's default generator for the life of the object and puts its state back after,
// so MC dropout is reproducible without disturbing a training run's random stream.
class SeededDefaultGenerator {
 public:
  explicit SeededDefaultGenerator(uint64_t seed) : generator_(at::detail::getDefaultCPUGenerator()) {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    saved_ = generator_.get_state();
    generator_.set_current_seed(seed);
  }
  ~SeededDefaultGenerator() {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    generator_.set_state(saved_);
  }
  SeededDefaultGenerator(const SeededDefaultGenerator&) = delete;
  SeededDefaultGenerator& operator=(const SeededDefaultGenerator&) = delete;

 private:
  at::Generator generator_;
  at::Tensor saved_;
};

}  // namespace

ScoreStats mc_dropout_scores(Ranker& ranker, const GraphTensors& graph,
                             const data::ConfigView& configs,
                             const std::vector<int64_t>& config_indices, int64_t samples,
                             uint64_t seed, int64_t slate_size) {
  check_data(samples >= 1, "mc dropout", "samples", "must be at least 1");
  check_data(slate_size >= 1, "mc dropout", "slate_size", "must be at least 1");
  std::vector<int64_t> indices = listed_or_all(config_indices, configs.count);
  torch::NoGradGuard no_grad;
  RankerModeGuard dropout_on(ranker, /*training=*/true);
  SeededDefaultGenerator seeded(seed);
  const size_t n = indices.size();
  ScoreStats stats;
  stats.mean.assign(n, 0.0);
  std::vector<double> squares(n, 0.0);  // Welford's running sum of squared deviations
  for (int64_t k = 0; k < samples; ++k) {
    for (size_t start = 0; start < n; start += static_cast<size_t>(slate_size)) {
      const size_t end = std::min(n, start + static_cast<size_t>(slate_size));
      std::vector<int64_t> chunk(indices.begin() + start, indices.begin() + end);
      torch::Tensor out =
          ranker->forward(make_slate(graph, configs, chunk)).to(torch::kFloat64).contiguous();
      const double* p = out.data_ptr<double>();
      for (size_t i = start; i < end; ++i) {
        // Welford keeps identical samples exact: the mean stays the value, the spread 0.
        const double x = p[i - start];
        const double delta = x - stats.mean[i];
        stats.mean[i] += delta / static_cast<double>(k + 1);
        squares[i] += delta * (x - stats.mean[i]);
      }
    }
  }
  stats.std.resize(n);
  for (size_t i = 0; i < n; ++i) stats.std[i] = std::sqrt(std::max(0.0, squares[i] / samples));
  return stats;
}

}  // namespace graphcost::model
