// Graph Segment Training (Cao et al. 2023, docs/gst.md): each step computes a few random
// segments of a graph with gradients and takes the other segments' scores from a historical
// table (computed without gradients the first time, refreshed whenever a segment is
// recomputed), each stale segment dropped with probability p and the kept ones scaled by
// 1 / (1 - p). Memory per step is bounded by the segment size, whatever the graph size.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/collection.h"
#include "model/forward/ranker.h"
#include "model/forward/segments.h"
#include "train/options.h"

namespace graphcost::train {

// Checks the gst_* options (an Error names the bad one) and copies the segment size and
// partition into options.model, so the saved model scores by segments as it was trained.
void apply_gst_options(TrainOptions& options);

class SegmentTrainer {
 public:
  // Uses options.gst_* (gst_segment_nodes > 0) and options.seed; collection must outlive it.
  SegmentTrainer(const data::Collection& collection, const TrainOptions& options);

  // Training scores [S] of a slate of graph slate.graph_index: gst_segments_per_step random
  // segments with gradients (their table entries refreshed), the others from the table.
  // stream is unique to the slate within the run (batch index * G + position): the choice of
  // segments and the dropout depend only on (seed, stream).
  torch::Tensor forward(model::Ranker& model, const model::Slate& slate, uint64_t stream);

  // The graph's segments, built on first use and kept.
  const model::SegmentedGraph& segments(int64_t graph);
  // The table's score of segment `segment` for configuration `config` of `graph`; NaN when
  // never computed.
  double historical(int64_t graph, int64_t config, int64_t segment) const;
  // The segments computed with gradients by the last forward().
  const std::vector<int64_t>& last_fresh() const { return last_fresh_; }
  // Segment scores computed without gradients so far to fill the table.
  int64_t filled_without_gradient() const { return filled_; }

  // The historical table goes into checkpoints: a resumed run then sees the same stale scores
  // as an uninterrupted one instead of refilling them with the newer weights.
  void save(torch::serialize::OutputArchive& archive) const;
  // Restores the table from a checkpoint (one without a table leaves it empty); an entry whose
  // graph or segment count does not match this collection is an Error naming `where`.
  void load(torch::serialize::InputArchive& archive, const std::string& where);

 private:
  const data::Collection& collection_;
  TrainOptions options_;
  std::vector<std::unique_ptr<model::SegmentedGraph>> segments_;
  // Per graph: configuration index -> one score per segment (NaN: never computed).
  std::vector<std::unordered_map<int64_t, std::vector<float>>> table_;
  std::vector<int64_t> last_fresh_;
  int64_t filled_ = 0;
};

}  // namespace graphcost::train
