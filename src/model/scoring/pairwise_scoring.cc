#include "model/scoring/pairwise_scoring.h"

#include <algorithm>
#include <numeric>

#include "core/random.h"
#include "model/scoring/predict.h"

namespace graphcost::model {

namespace {
constexpr int64_t kRowsPerChunk = 256;  // bounds the [rows, M, E] differences in memory
}

std::vector<int64_t> pairwise_reference_positions(int64_t count, int64_t references,
                                                  uint64_t seed) {
  std::vector<int64_t> positions(count);
  std::iota(positions.begin(), positions.end(), 0);
  Random random(seed);
  random.shuffle(positions);
  positions.resize(std::min(count, references));
  std::sort(positions.begin(), positions.end());
  return positions;
}

std::vector<double> score_configs_by_wins(Ranker& ranker, const GraphTensors& graph,
                                          const data::ConfigView& configs,
                                          const std::vector<int64_t>& config_indices,
                                          int64_t slate_size) {
  std::vector<int64_t> indices = listed_or_all(config_indices, configs.count);
  const int64_t count = static_cast<int64_t>(indices.size());
  if (count == 0) return {};
  torch::NoGradGuard no_grad;
  RankerModeGuard eval_mode(ranker, /*training=*/false);
  std::vector<torch::Tensor> parts;
  RankerImpl::SharedCache cache;  // the chunks share the graph's configuration-independent work
  for (int64_t start = 0; start < count; start += slate_size) {
    std::vector<int64_t> chunk(indices.begin() + start,
                               indices.begin() + std::min(count, start + slate_size));
    parts.push_back(ranker->embed(make_slate(graph, configs, chunk), &cache));
  }
  const torch::Tensor embeddings = torch::cat(parts);
  const std::vector<int64_t> references = pairwise_reference_positions(
      count, ranker->options().pairwise_references, kPairwiseReferenceSeed);
  const torch::Tensor reference_positions = torch::tensor(references, torch::kLong);
  const torch::Tensor reference_embeddings = embeddings.index_select(0, reference_positions);
  std::vector<double> scores;
  scores.reserve(count);
  for (int64_t start = 0; start < count; start += kRowsPerChunk) {
    const int64_t rows = std::min(kRowsPerChunk, count - start);
    const torch::Tensor logits =
        ranker->pairwise_logits(embeddings.narrow(0, start, rows), reference_embeddings);
    const torch::Tensor leave_out =
        torch::arange(start, start + rows, torch::kLong).unsqueeze(1) ==
        reference_positions.unsqueeze(0);
    const torch::Tensor out = scores_from_wins(logits, leave_out).to(torch::kFloat64).contiguous();
    scores.insert(scores.end(), out.data_ptr<double>(), out.data_ptr<double>() + rows);
  }
  return scores;
}

}  // namespace graphcost::model
