#include "model/tta.h"

#include <numeric>

#include "core/error.h"
#include "core/random.h"
#include "model/predict.h"

namespace graphcost::model {

std::vector<double> score_configs_tta(Ranker& ranker, const GraphTensors& graph,
                                      const data::ConfigView& configs,
                                      const std::vector<int64_t>& config_indices,
                                      int64_t slate_size, int64_t rounds, uint64_t seed) {
  check_data(rounds >= 1, "tta", "rounds", "must be at least 1");
  std::vector<int64_t> indices = config_indices;
  if (indices.empty()) {
    indices.resize(configs.count);
    std::iota(indices.begin(), indices.end(), 0);
  }
  std::vector<double> sums(indices.size(), 0.0);
  if (indices.empty()) return sums;
  // Positions rather than indices are shuffled, so repeated indices stay separate.
  std::vector<size_t> positions(indices.size());
  std::vector<int64_t> shuffled(indices.size());
  for (int64_t r = 0; r < rounds; ++r) {
    std::iota(positions.begin(), positions.end(), 0);
    Random random = random_stream(seed, static_cast<uint64_t>(r));
    random.shuffle(positions);
    for (size_t i = 0; i < positions.size(); ++i) shuffled[i] = indices[positions[i]];
    const std::vector<double> scores = score_configs(ranker, graph, configs, shuffled, slate_size);
    for (size_t i = 0; i < positions.size(); ++i) sums[positions[i]] += scores[i];
  }
  for (double& s : sums) s /= static_cast<double>(rounds);
  return sums;
}

}  // namespace graphcost::model
