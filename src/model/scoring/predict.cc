#include "model/scoring/predict.h"

#include <algorithm>
#include <numeric>

#include "model/scoring/pairwise_scoring.h"

namespace graphcost::model {

std::vector<int64_t> listed_or_all(const std::vector<int64_t>& config_indices, int64_t count) {
  if (!config_indices.empty()) return config_indices;
  std::vector<int64_t> all(static_cast<size_t>(count));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

std::vector<double> score_configs(Ranker& ranker, const GraphTensors& graph,
                                  const data::ConfigView& configs,
                                  const std::vector<int64_t>& config_indices, int64_t slate_size,
                                  const SegmentedGraph* segments) {
  std::vector<int64_t> indices = listed_or_all(config_indices, configs.count);
  if (ranker->options().head == "pairwise")
    return score_configs_by_wins(ranker, graph, configs, indices, slate_size);
  torch::NoGradGuard no_grad;
  RankerModeGuard eval_mode(ranker, /*training=*/false);
  std::vector<double> scores;
  scores.reserve(indices.size());
  // The slates of one graph share its configuration-independent work (exact in eval mode).
  // A model trained by segments is scored by segments, each with its own cache.
  RankerImpl::SharedCache cache;
  SegmentCaches segment_caches;
  for (size_t start = 0; start < indices.size(); start += slate_size) {
    size_t end = std::min(indices.size(), start + static_cast<size_t>(slate_size));
    std::vector<int64_t> chunk(indices.begin() + start, indices.begin() + end);
    const Slate slate = make_slate(graph, configs, chunk);
    torch::Tensor out = (segments ? forward_by_segments(ranker, *segments, slate, &segment_caches)
                                  : ranker->forward_cached(slate, true, &cache))
                            .to(torch::kFloat64)
                            .contiguous();
    const double* p = out.data_ptr<double>();
    scores.insert(scores.end(), p, p + out.numel());
  }
  return scores;
}

}  // namespace graphcost::model
