// Validation during training: the model being trained scored on a fixed seeded sample of each
// validation graph's configurations, through the inference layer (infer::score_collection) as
// eval scores a run, and summarised by eval's metrics for the collection's kind.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "data/collection.h"
#include "dist/group.h"
#include "eval/summary.h"
#include "model/forward/ranker.h"
#include "train/options.h"
#include "train/sampler.h"

namespace graphcost::train {

// One validation graph's scores and measured runtimes on its validation sample, and which
// configurations that sample holds.
struct GraphPrediction : eval::GraphScores {
  std::vector<int64_t> config_indices;
};

// Means over the graphs of valid (those with runtimes and >= 2 configurations) on a fixed
// seeded sample of options.valid_configs_per_graph configurations each, scored through
// infer::score_collection as eval scores the run (attention models against the training slate
// size - 1 anchors, the others in slates of valid_batch). Layout: kendall_tau, opa; tile:
// top1_error, top5_error, top10_error, tile_score; plus valid_graphs (the count). Per-graph
// predictions go to *predictions when given. The graphs are scored one per core, and the result
// does not depend on that count. With a group, each rank scores the graphs it owns and every
// rank returns the same means as one process. max_graphs >= 0 scores only the first max_graphs
// graphs of valid (the others are left out as if they had no runtimes).
nlohmann::json validate(model::Ranker& model, const data::Collection& valid,
                        GraphTensorCache& cache, const TrainOptions& options,
                        std::vector<GraphPrediction>* predictions = nullptr,
                        dist::Group* group = nullptr, int64_t max_graphs = -1);

}  // namespace graphcost::train
