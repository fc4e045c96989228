#include "model/forward/segments.h"

#include "core/error.h"

namespace graphcost::model {

SegmentedGraph make_segmented_graph(const data::Graph& graph, int64_t max_nodes,
                                    data::SegmentPartition partition,
                                    const GraphFeatureOptions& features) {
  SegmentedGraph out;
  out.num_nodes = graph.num_nodes;
  for (const data::GraphSegment& segment : data::segment_graph(graph, max_nodes, partition)) {
    SegmentTensors t;
    t.graph = make_graph_tensors(segment.graph, features);
    t.config_columns = torch::tensor(segment.config_columns, torch::kLong);
    t.has_configurable = !segment.config_columns.empty();
    out.segments.push_back(std::move(t));
  }
  return out;
}

SegmentedGraph make_segmented_graph(const data::Graph& graph, const ModelOptions& options) {
  return make_segmented_graph(graph, options.segment_nodes,
                              data::parse_segment_partition(options.segment_partition),
                              graph_feature_options(options));
}

std::unique_ptr<SegmentedGraph> segments_for_model(const data::Graph& graph,
                                                   const ModelOptions& options) {
  if (options.segment_nodes <= 0) return nullptr;
  return std::make_unique<SegmentedGraph>(make_segmented_graph(graph, options));
}

Slate segment_slate(const Slate& slate, const SegmentTensors& segment) {
  Slate out;
  out.graph = &segment.graph;
  out.graph_index = slate.graph_index;
  out.config_indices = slate.config_indices;
  out.runtimes = slate.runtimes;
  const torch::Tensor& c = slate.config_features;
  out.config_features = c.dim() == 3 ? c.index_select(1, segment.config_columns) : c;
  return out;
}

torch::Tensor forward_segment(Ranker& ranker, const SegmentTensors& segment, const Slate& slate,
                              RankerImpl::SharedCache* cache) {
  Slate part = segment_slate(slate, segment);
  const int64_t s = part.config_features.size(0);
  if (part.config_features.dim() == 3 && !segment.has_configurable && s > 1) {
    part.config_features = part.config_features.narrow(0, 0, 1);
    part.config_indices.resize(1);
    return ranker->forward_cached(part, true, cache).expand({s});
  }
  return ranker->forward_cached(part, true, cache);
}

torch::Tensor forward_by_segments(Ranker& ranker, const SegmentedGraph& graph, const Slate& slate,
                                  SegmentCaches* caches) {
  check_data(slate.config_features.defined(), "segments", "slate", "no configuration features");
  if (caches != nullptr) caches->resize(graph.segments.size());
  torch::Tensor total = torch::zeros({slate.config_features.size(0)});
  for (size_t k = 0; k < graph.segments.size(); ++k) {
    total = total + forward_segment(ranker, graph.segments[k], slate,
                                    caches != nullptr ? &(*caches)[k] : nullptr);
  }
  return total;
}

}  // namespace graphcost::model
