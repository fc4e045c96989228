// The pre-activation change of a SAGE layer computed by its change (model/forward/ranker.cc): the
// projected change P [before, S, 3H] (the weight's self, operand-mean and user-mean blocks applied
// to the rows a configuration has reached so far) becomes, for the rows [0, rows) reached after
// the layer,
//   out[r] = (r < before ? P[r, :, 0:H] : 0)
//          + op_scale[r] * sum over operands j < before of r   of P[j, :, H:2H]
//          + user_scale[r] * sum over users j < before of r    of P[j, :, 2H:3H]
// with the scales 1 / full degree, so it equals mean aggregation of P zero-padded to every
// input row. One pass each way and no padded or sliced copies of P; the backward gathers along
// the reverse CSRs, so no atomics are needed.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace graphcost::model {

// The CSRs of one layer's change, in plan labels (model/forward/config_reach.h): forward CSRs have
// `rows` rows and entries < before; reverse CSRs have `before` rows and entries < rows; scales
// are float64 [rows].
struct ChangeCsr {
  torch::Tensor operand_offsets, operand_indices, operand_reverse_offsets, operand_reverse_indices;
  torch::Tensor user_offsets, user_indices, user_reverse_offsets, user_reverse_indices;
  torch::Tensor operand_scale, user_scale;
};

// A ChangeCsr's forward (or reverse) CSRs and its scales as raw pointers, for kernels: row r's
// operands are op_idx[op_off[r] .. op_off[r + 1]), its users likewise.
struct ChangeCsrPointers {
  const int64_t *op_off, *op_idx, *us_off, *us_idx;
  const double *op_scale, *us_scale;
};
ChangeCsrPointers forward_pointers(const ChangeCsr& csr);
ChangeCsrPointers reverse_pointers(const ChangeCsr& csr);

// projected: [before, S, 3H] (or [before, 3H]) float, contiguous. Result [rows, S, H]
// (or [rows, H]), differentiable in projected. When `base` ([rows, H] float, contiguous) is
// given, base[r] is added to every configuration's row r in the same pass (the layer's shared
// pre-activation; differentiable in base too), which saves a broadcast add over [rows, S, H] and
// its backward. Bad shapes throw graphcost::Error.
torch::Tensor change_aggregate(const torch::Tensor& projected, const ChangeCsr& csr, int64_t rows,
                               const torch::Tensor& base = {});

}  // namespace graphcost::model
