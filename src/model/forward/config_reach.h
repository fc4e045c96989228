// Which nodes a configuration can influence, layer by layer. A layout configuration sets values
// only at the configurable nodes, and a GraphSAGE layer moves information one hop (operands and
// users), so after l layers a node's state depends on the configuration only if it lies within
// l hops of a configurable node. The ranker computes the other nodes once per graph instead of
// once per configuration; this plan tells it which nodes those are.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "model/forward/graph_tensors.h"
#include "model/kernels/change_aggregate.h"

namespace graphcost::model {

// CSR pieces for one layer in the plan's labels: output rows are labels [0, reach[l]), input rows
// are labels [0, reach[l+1]); the reverse CSRs are the transposes, for the backward.
struct ReachLayerCsr {
  torch::Tensor operand_offsets, operand_indices, operand_reverse_offsets, operand_reverse_indices;
  torch::Tensor user_offsets, user_indices, user_reverse_offsets, user_reverse_indices;
  // The same rows restricted to inputs reached before the layer (labels [0, reach[l - 1])),
  // with 1 / full degree as scales: what change_aggregate needs for a layer computed by its
  // change.
  ChangeCsr change;
};

struct ConfigReachPlan {
  // New label -> node: nodes sorted by (hop distance to the nearest configurable node, index),
  // so the nodes within l hops are a prefix of length reach[l].
  torch::Tensor order;  // [n] int64
  // For labels [0, reach[0]): the node's position in graph.configurable_nodes (layout only).
  torch::Tensor config_position;  // [reach[0]] int64
  std::vector<int64_t> reach;     // num_layers + 2 entries: nodes within 0 .. num_layers + 1 hops
  std::vector<ReachLayerCsr> layers;  // layer l (1-based) at index l - 1
  // The configuration-independent ("shared") pass, also in labels: layer l computes its shared
  // pre-activation on rows [0, shared_rows[l - 1]) from inputs [0, shared_inputs[l - 1]) through
  // shared_layers[l - 1] (forward and reverse CSRs; `change` unused). Every node when the final
  // shared state is wanted; otherwise only what the reached rows read: the last layer's
  // pre-activation on the nodes within L hops, its inputs within L + 1, and so on back, one hop
  // more per layer (layer l: rows within 2L - l hops, inputs within 2L - l + 1).
  std::vector<int64_t> shared_rows, shared_inputs;
  std::vector<ReachLayerCsr> shared_layers;
};

// Plans num_layers layers. every_node_configured: the configuration reaches every node from the
// start (tile configurations are broadcast). final_shared: the shared pass covers every node (its
// last state gives the per-graph constant); false restricts it to what the reached rows read.
// Duplicate configurable nodes are an Error.
ConfigReachPlan plan_config_reach(const GraphTensors& graph, int64_t num_layers,
                                  bool every_node_configured, bool final_shared = true);

}  // namespace graphcost::model
