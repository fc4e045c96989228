#include "model/scoring/tta.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/random.h"
#include "model/scoring/predict.h"

namespace graphcost::model {

std::vector<double> score_configs_tta(Ranker& ranker, const GraphTensors& graph,
                                      const data::ConfigView& configs,
                                      const std::vector<int64_t>& config_indices,
                                      int64_t slate_size, int64_t rounds, uint64_t seed) {
  check_data(rounds >= 1, "tta", "rounds", "must be at least 1");
  std::vector<int64_t> indices = listed_or_all(config_indices, configs.count);
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

std::vector<double> score_configs_anchored(Ranker& ranker, const GraphTensors& graph,
                                           const data::ConfigView& configs,
                                           const std::vector<int64_t>& config_indices,
                                           int64_t slate_size, int64_t anchors, uint64_t seed) {
  check_data(anchors >= 1, "anchored scoring", "anchors", "must be at least 1");
  check_data(slate_size >= 1, "anchored scoring", "slate_size", "must be at least 1");
  std::vector<int64_t> indices = listed_or_all(config_indices, configs.count);
  std::vector<double> scores;
  if (indices.empty()) return scores;
  std::vector<int64_t> chosen = indices;
  Random random = random_stream(seed, 0);
  random.shuffle(chosen);
  chosen.resize(std::min<size_t>(chosen.size(), static_cast<size_t>(anchors)));
  torch::NoGradGuard no_grad;
  RankerModeGuard eval_mode(ranker, /*training=*/false);
  // Embeddings before attention do not depend on the slate: the graph's configuration-independent
  // work is computed once for the anchors and every chunk.
  RankerImpl::SharedCache cache;
  const torch::Tensor anchor_embeddings =
      ranker->embed_before_attention(make_slate(graph, configs, chosen), &cache);
  scores.reserve(indices.size());
  for (size_t start = 0; start < indices.size(); start += slate_size) {
    const size_t end = std::min(indices.size(), start + static_cast<size_t>(slate_size));
    const std::vector<int64_t> chunk(indices.begin() + start, indices.begin() + end);
    const torch::Tensor e =
        ranker->embed_before_attention(make_slate(graph, configs, chunk), &cache);
    const torch::Tensor out =
        ranker->scores_anchored(e, anchor_embeddings).to(torch::kFloat64).contiguous();
    scores.insert(scores.end(), out.data_ptr<double>(), out.data_ptr<double>() + out.numel());
  }
  return scores;
}

}  // namespace graphcost::model
