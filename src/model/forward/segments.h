// A graph as segments for Graph Segment Training and for scoring the way such a model was
// trained: each segment's tensors built once, a slate cut down to a segment, and scores summed
// over segments (the default ranker sums per-node scores, so a graph's score is the sum of its
// segments' scores; edges between segments are not seen).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "data/segment.h"
#include "model/forward/graph_tensors.h"
#include "model/forward/ranker.h"

namespace graphcost::model {

struct SegmentTensors {
  GraphTensors graph;
  torch::Tensor config_columns;  // [nc_s] int64: the segment's columns of a layout slate
  bool has_configurable = false;  // layout: false means the same score for every configuration
};

struct SegmentedGraph {
  int64_t num_nodes = 0;
  std::vector<SegmentTensors> segments;
};

// Splits graph into segments of at most max_nodes nodes (data::segment_graph) and builds their
// tensors.
SegmentedGraph make_segmented_graph(const data::Graph& graph, int64_t max_nodes,
                                    data::SegmentPartition partition,
                                    const GraphFeatureOptions& features = {});
// The same with the ranker's own ModelOptions::segment_nodes / segment_partition.
SegmentedGraph make_segmented_graph(const data::Graph& graph, const ModelOptions& options);

// The graph's segments when options.segment_nodes > 0 (a model trained by segments), else null.
std::unique_ptr<SegmentedGraph> segments_for_model(const data::Graph& graph,
                                                   const ModelOptions& options);

// The slate's configurations seen by one segment: layout keeps the segment's configuration
// columns, tile keeps the features; runtimes, indices and graph_index are shared.
Slate segment_slate(const Slate& slate, const SegmentTensors& segment);

// Scores [S] of segment s: ranker->forward on its slate. A layout segment without configurable
// nodes is evaluated once and broadcast (its score does not depend on the configuration).
// cache (may be null) keeps the segment's configuration-independent work between calls, as
// RankerImpl::forward_cached does for a whole graph.
torch::Tensor forward_segment(Ranker& ranker, const SegmentTensors& segment, const Slate& slate,
                              RankerImpl::SharedCache* cache = nullptr);

// One cache per segment of a graph, for scoring it in many slates.
using SegmentCaches = std::vector<RankerImpl::SharedCache>;

// Scores [S] of the whole slate: the sum over every segment of forward_segment. caches (may be
// null) holds one cache per segment and is sized on first use.
torch::Tensor forward_by_segments(Ranker& ranker, const SegmentedGraph& graph, const Slate& slate,
                                  SegmentCaches* caches = nullptr);

}  // namespace graphcost::model
