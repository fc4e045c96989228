#include "train/validation.h"

#include <algorithm>
#include <cmath>

#include "core/random.h"
#include "infer/scoring.h"

namespace graphcost::train {

namespace {

// Validation samples come from their own stream family so they never overlap the batches'.
constexpr uint64_t kValidationStream = 0x76616c6964ULL;

}  // namespace

nlohmann::json validate(model::Ranker& model, const data::Collection& valid,
                        GraphTensorCache& cache, const TrainOptions& options,
                        std::vector<GraphPrediction>* predictions, dist::Group* group,
                        int64_t max_graphs) {
  // Each graph's sample: a fixed seeded draw of its own (every rank draws every graph's). A graph
  // without runtimes or with fewer than 2 configurations is left out.
  std::vector<std::vector<int64_t>> chosen(static_cast<size_t>(valid.size()));
  const int64_t considered = max_graphs >= 0 ? std::min(max_graphs, valid.size()) : valid.size();
  for (int64_t g = 0; g < considered; ++g) {
    const data::ConfigView configs = valid.configs(g);
    if (!configs.has_runtimes() || configs.count < 2) continue;
    Random random = random_stream(options.seed ^ kValidationStream, static_cast<uint64_t>(g));
    // <= 0 means every configuration.
    const int64_t sample =
        options.valid_configs_per_graph > 0 ? options.valid_configs_per_graph : configs.count;
    chosen[g] = sample_without_replacement(random, configs.count, sample);
    std::sort(chosen[g].begin(), chosen[g].end());
  }
  // Scored as eval scores the run (infer/scoring.h): attention models against the training
  // slate size - 1 anchors, the others in slates of valid_batch (by segments for a model trained
  // by them). Pairwise scores (wins) compare only within one call: the graph is one call.
  std::vector<infer::TrainedModel> runs(1);
  runs[0].ranker = model;
  runs[0].slate_size = options.slate_size;
  infer::ScoringOptions how;
  how.slate_size = std::max<int64_t>(1, options.valid_batch);
  infer::Scorer scorer(how, runs);
  scorer.group = group;
  infer::CollectionScoring what;
  what.chosen = &chosen;
  what.stream_base = options.seed ^ kValidationStream;
  what.tensors = [&cache](int64_t g) -> const model::GraphTensors& { return cache.get(g); };
  what.progress = false;
  std::vector<eval::GraphScores> scored = infer::score_collection(scorer, valid, what);
  // The metrics eval reports for the collection's kind (eval::evaluate), means over the graphs
  // that have them.
  std::vector<eval::GraphScores> graphs;
  for (int64_t g = 0; g < valid.size(); ++g) {
    if (chosen[g].empty()) continue;
    if (predictions)
      predictions->push_back({scored[g], chosen[g]});
    graphs.push_back(std::move(scored[g]));
  }
  const eval::MetricTable table = eval::evaluate(valid.id().kind, graphs);
  nlohmann::json result = {{"valid_graphs", static_cast<int64_t>(graphs.size())}};
  for (size_t i = 0; i < table.metric_names.size(); ++i) {
    const double mean = table.means[i];
    result[table.metric_names[i]] =
        std::isfinite(mean) ? nlohmann::json(mean) : nlohmann::json(nullptr);
  }
  return result;
}

}  // namespace graphcost::train
