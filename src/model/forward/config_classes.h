// Configurations a row cannot tell apart. A node's state after k GraphSAGE layers depends on a
// layout configuration only through the values it sets at the configurable nodes within k hops,
// and real configurations repeat those values: a configurable node takes 2-9 distinct layouts in
// a whole file (shared/data/tpugraphs), and most configurations of a "default" search change a
// few nodes. So within one slate many (row, configuration) pairs hold the same state, and the
// change-based layers (model/forward/ranker.cc) compute one row per class of configurations that agree
// on the row's neighbourhood: the matmuls, the aggregation and the activations. Exact: equal
// inputs give equal outputs, and a parameter's gradient is the same whichever member of a class
// carries it (every member's state is the same function of the parameters), as long as dropout
// draws nothing.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "model/kernels/change_aggregate.h"

namespace graphcost::model {

// Classes of the configurable nodes (0 hops): [a0, S] int64. Row r is the configurable node at
// position config_position[r] of config_values [S, nc, F]; class ids count from 0 in order of
// first occurrence along the row, and two configurations share one iff their values at that node
// are equal.
torch::Tensor configurable_node_classes(const torch::Tensor& config_values,
                                        const torch::Tensor& config_position);

// Classes one hop further: from classes [before, S] of rows [0, before) to [rows, S], where two
// configurations share a class at row r iff they share one at r (when r < before) and at every
// operand and user of r below `before` (the entries of a change CSR, model/forward/config_reach.h). By
// induction: iff they agree at every configurable node within one more hop. Ids as above.
torch::Tensor next_hop_classes(const torch::Tensor& classes, const ChangeCsr& csr, int64_t rows);

// One representative per (row, class): where the distinct rows of a [rows, S, ...] tensor are,
// and how to spread per-representative results back.
struct RowSharing {
  torch::Tensor representatives;  // [U] int64: flat indices r * S + c of each class's first member
  torch::Tensor spread;           // [rows * S] int64: the position in representatives of each
  int64_t distinct = 0;           // U
};
RowSharing row_sharing(const torch::Tensor& classes);

// The distinct (row, class) entries of one hop level: a compact tensor [U, ...] holds one row per
// entry, entry u being row rows_of[u] for configuration configs_of[u] (its class's first member);
// sharing.spread maps every (row, configuration) to its entry.
struct ClassRows {
  RowSharing sharing;
  torch::Tensor rows_of, configs_of;  // [U] int64
  int64_t rows = 0, slate = 0;
  // Whether computing by entry pays: at most nine tenths of the (row, configuration) pairs.
  bool worth_sharing() const { return sharing.distinct * 10 <= rows * slate * 9; }
};
ClassRows class_rows(const torch::Tensor& classes);

// change_aggregate (model/kernels/change_aggregate.h) on class entries: projected [U_before, 3H], one row
// per entry of `before` (classes of the rows [0, before.rows) the change sits on), becomes the
// aggregated change [U_after, H] of the entries of `after` (classes of the csr's rows one hop
// further). Sums in double, as change_aggregate. Differentiable in projected.
torch::Tensor class_change_aggregate(const torch::Tensor& projected, const ClassRows& before,
                                     const ClassRows& after, const ChangeCsr& csr);

}  // namespace graphcost::model
