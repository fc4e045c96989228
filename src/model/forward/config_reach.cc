#include "model/forward/config_reach.h"

#include <algorithm>
#include <limits>

#include "core/error.h"
#include "model/kernels/tensor_from.h"

namespace graphcost::model {

namespace {

struct CsrVectors {
  std::vector<int64_t> offsets;
  std::vector<int64_t> indices;
};

// The CSR (offsets, indices) relabelled: row r is node order[r], entries map through label_of.
CsrVectors relabel(const torch::Tensor& offsets, const torch::Tensor& indices,
                   const std::vector<int64_t>& order, const std::vector<int64_t>& label_of) {
  const int64_t* off = offsets.data_ptr<int64_t>();
  const int64_t* idx = indices.data_ptr<int64_t>();
  CsrVectors out;
  out.offsets.reserve(order.size() + 1);
  out.indices.reserve(static_cast<size_t>(indices.size(0)));
  out.offsets.push_back(0);
  for (int64_t v : order) {
    for (int64_t k = off[v]; k < off[v + 1]; ++k) out.indices.push_back(label_of[idx[k]]);
    out.offsets.push_back(static_cast<int64_t>(out.indices.size()));
  }
  return out;
}

// Rows [0, rows) of csr keeping only entries < limit.
CsrVectors restrict_rows(const CsrVectors& csr, int64_t rows, int64_t limit) {
  CsrVectors out;
  out.offsets.reserve(static_cast<size_t>(rows) + 1);
  out.offsets.push_back(0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = csr.offsets[r]; k < csr.offsets[r + 1]; ++k) {
      if (csr.indices[k] < limit) out.indices.push_back(csr.indices[k]);
    }
    out.offsets.push_back(static_cast<int64_t>(out.indices.size()));
  }
  return out;
}

// csr as a pair of int64 tensors.
void set_csr(const CsrVectors& csr, torch::Tensor& offsets, torch::Tensor& indices) {
  offsets = tensor_from(csr.offsets);
  indices = tensor_from(csr.indices);
}

// The operand and user CSRs of output rows [0, rows) reading input rows [0, inputs), and their
// reverses (input rows -> output rows), into a ReachLayerCsr or a ChangeCsr.
template <typename LayerCsr>
void set_layer_csrs(const CsrVectors& operands, const CsrVectors& users, int64_t rows,
                    int64_t inputs, LayerCsr& out) {
  set_csr(restrict_rows(operands, rows, inputs), out.operand_offsets, out.operand_indices);
  set_csr(restrict_rows(users, inputs, rows), out.operand_reverse_offsets,
          out.operand_reverse_indices);
  set_csr(restrict_rows(users, rows, inputs), out.user_offsets, out.user_indices);
  set_csr(restrict_rows(operands, inputs, rows), out.user_reverse_offsets,
          out.user_reverse_indices);
}

// 1 / degree of rows [0, rows) of csr (0 for a row without entries), float64.
torch::Tensor inverse_degrees(const CsrVectors& csr, int64_t rows) {
  torch::Tensor t = torch::empty({rows}, torch::kDouble);
  double* out = t.data_ptr<double>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t degree = csr.offsets[r + 1] - csr.offsets[r];
    out[r] = degree > 0 ? 1.0 / static_cast<double>(degree) : 0.0;
  }
  return t;
}

}  // namespace

ConfigReachPlan plan_config_reach(const GraphTensors& graph, int64_t num_layers,
                                  bool every_node_configured, bool final_shared) {
  const int64_t n = graph.num_nodes;
  const int64_t unreached = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> distance(static_cast<size_t>(n), unreached);
  std::vector<int64_t> frontier;
  std::vector<int64_t> position_of(static_cast<size_t>(n), -1);
  if (every_node_configured) {
    std::fill(distance.begin(), distance.end(), 0);
  } else {
    const int64_t nc = graph.configurable_nodes.size(0);
    const int64_t* nodes = graph.configurable_nodes.data_ptr<int64_t>();
    for (int64_t p = 0; p < nc; ++p) {
      check_data(position_of[nodes[p]] < 0, "graph", "configurable_nodes",
                 "node " + std::to_string(nodes[p]) + " is listed twice");
      position_of[nodes[p]] = p;
      distance[nodes[p]] = 0;
      frontier.push_back(nodes[p]);
    }
  }
  // Breadth-first over operands and users, num_layers + 1 hops deep, or 2 num_layers for a
  // restricted shared pass (its first layer reads the nodes within 2L hops).
  const int64_t depth = final_shared ? num_layers + 1 : std::max(num_layers + 1, 2 * num_layers);
  const int64_t* op_off = graph.operand_offsets.data_ptr<int64_t>();
  const int64_t* op_idx = graph.operand_indices.data_ptr<int64_t>();
  const int64_t* us_off = graph.user_offsets.data_ptr<int64_t>();
  const int64_t* us_idx = graph.user_indices.data_ptr<int64_t>();
  for (int64_t hop = 1; hop <= depth && !frontier.empty(); ++hop) {
    std::vector<int64_t> next;
    auto visit = [&](int64_t u) {
      if (distance[u] == unreached) {
        distance[u] = hop;
        next.push_back(u);
      }
    };
    for (int64_t v : frontier) {
      for (int64_t k = op_off[v]; k < op_off[v + 1]; ++k) visit(op_idx[k]);
      for (int64_t k = us_off[v]; k < us_off[v + 1]; ++k) visit(us_idx[k]);
    }
    frontier.swap(next);
  }

  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) order[v] = v;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return distance[a] < distance[b]; });
  std::vector<int64_t> label_of(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) label_of[order[r]] = r;

  // within[h]: nodes within h hops, h = 0 .. depth.
  std::vector<int64_t> within(static_cast<size_t>(depth) + 1, 0);
  for (int64_t v = 0; v < n; ++v) {
    if (distance[v] <= depth) ++within[distance[v]];
  }
  for (int64_t h = 1; h <= depth; ++h) within[h] += within[h - 1];
  ConfigReachPlan plan;
  plan.reach.assign(within.begin(), within.begin() + num_layers + 2);
  plan.order = tensor_from(order);
  std::vector<int64_t> positions;
  if (!every_node_configured) {
    for (int64_t r = 0; r < plan.reach[0]; ++r) positions.push_back(position_of[order[r]]);
  }
  plan.config_position = tensor_from(positions);

  const CsrVectors operands =
      relabel(graph.operand_offsets, graph.operand_indices, order, label_of);
  const CsrVectors users = relabel(graph.user_offsets, graph.user_indices, order, label_of);
  for (int64_t l = 1; l <= num_layers; ++l) {
    const int64_t rows = plan.reach[l], inputs = plan.reach[l + 1];
    // Every neighbour of a node within l hops is within l + 1 hops, so the forward CSRs keep
    // every entry of their rows; the reverse ones drop entries pointing past the rows.
    ReachLayerCsr layer;
    set_layer_csrs(operands, users, rows, inputs, layer);
    // The change entering layer l sits on the rows reached before it: the same CSRs with inputs
    // restricted to those rows, and the full degrees as scales.
    set_layer_csrs(operands, users, rows, plan.reach[l - 1], layer.change);
    layer.change.operand_scale = inverse_degrees(operands, rows);
    layer.change.user_scale = inverse_degrees(users, rows);
    plan.layers.push_back(std::move(layer));
  }
  for (int64_t l = 1; l <= num_layers; ++l) {
    const int64_t rows = final_shared ? n : within[2 * num_layers - l];
    const int64_t inputs = final_shared ? n : within[2 * num_layers - l + 1];
    plan.shared_rows.push_back(rows);
    plan.shared_inputs.push_back(inputs);
    if (l > 1 && rows == plan.shared_rows[l - 2] && inputs == plan.shared_inputs[l - 2]) {
      plan.shared_layers.push_back(plan.shared_layers.back());  // same CSRs, shared tensors
      continue;
    }
    ReachLayerCsr layer;
    set_layer_csrs(operands, users, rows, inputs, layer);
    plan.shared_layers.push_back(std::move(layer));
  }
  return plan;
}

}  // namespace graphcost::model
