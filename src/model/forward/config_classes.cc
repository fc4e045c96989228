#include "model/forward/config_classes.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/kernels/scaled_add.h"
#include "model/kernels/tensor_from.h"

namespace graphcost::model {

namespace {

const char* kConfigClassesWhere = "config_classes";

uint64_t mix(uint64_t h, uint64_t v) {
  // splitmix64's finaliser over the running hash and the next value.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

// Class ids for items 0..s-1 of one row from their hashes and an exact equality test: equal items
// share an id, ids count from 0 in order of first occurrence. Hashes only narrow the comparisons.
template <typename Equal>
void assign_classes(const std::vector<uint64_t>& hash, Equal&& equal, std::vector<int64_t>& order,
                    std::vector<int64_t>& representative, int64_t* out) {
  const int64_t s = static_cast<int64_t>(hash.size());
  order.resize(static_cast<size_t>(s));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return hash[a] != hash[b] ? hash[a] < hash[b] : a < b;
  });
  representative.assign(static_cast<size_t>(s), -1);
  for (int64_t begin = 0; begin < s;) {
    int64_t end = begin + 1;
    while (end < s && hash[order[end]] == hash[order[begin]]) ++end;
    // Within a run of equal hashes (sorted by index), each item joins the first earlier item it
    // equals; usually the run is one class and this compares each item once.
    for (int64_t i = begin; i < end; ++i) {
      const int64_t item = order[i];
      representative[item] = item;
      for (int64_t j = begin; j < i; ++j) {
        const int64_t other = order[j];
        if (representative[other] == other && equal(other, item)) {
          representative[item] = other;
          break;
        }
      }
    }
    begin = end;
  }
  int64_t next = 0;
  for (int64_t c = 0; c < s; ++c) {
    const int64_t rep = representative[c];
    out[c] = rep == c ? next++ : out[rep];
  }
}

// Every entry of the csr's forward rows points below `before` (checked once, not per use).
void check_entries_below(const ChangeCsr& csr, int64_t before) {
  for (const torch::Tensor* indices : {&csr.operand_indices, &csr.user_indices}) {
    if (indices->numel() == 0) continue;
    check_data(indices->min().item<int64_t>() >= 0 && indices->max().item<int64_t>() < before,
               kConfigClassesWhere, "csr", "entries must lie in [0, " + std::to_string(before) + ")");
  }
}

}  // namespace

torch::Tensor configurable_node_classes(const torch::Tensor& config_values,
                                        const torch::Tensor& config_position) {
  check_data(config_values.dim() == 3 && config_values.scalar_type() == torch::kFloat, kConfigClassesWhere,
             "config_values", "expected float32 [S, nc, F]");
  check_data(config_position.dim() == 1 && config_position.scalar_type() == torch::kLong, kConfigClassesWhere,
             "config_position", "expected int64 [rows]");
  const torch::Tensor values = config_values.contiguous();
  const int64_t s = values.size(0), nc = values.size(1), f = values.size(2);
  const int64_t rows = config_position.size(0);
  const int64_t* position = config_position.data_ptr<int64_t>();
  check_data(rows == 0 || (config_position.min().item<int64_t>() >= 0 &&
                           config_position.max().item<int64_t>() < nc),
             kConfigClassesWhere, "config_position", "positions must lie in [0, " + std::to_string(nc) + ")");
  torch::Tensor classes = torch::empty({rows, s}, torch::kLong);
  const float* v = values.data_ptr<float>();
  int64_t* out = classes.data_ptr<int64_t>();
#pragma omp parallel
  {
    std::vector<uint64_t> hash(static_cast<size_t>(s));
    std::vector<int64_t> order, representative;
#pragma omp for schedule(dynamic, 16)
    for (int64_t r = 0; r < rows; ++r) {
      auto at = [&](int64_t c) { return v + (c * nc + position[r]) * f; };
      for (int64_t c = 0; c < s; ++c) {
        uint64_t h = 0;
        for (int64_t k = 0; k < f; ++k) {
          uint32_t bits;
          const float x = at(c)[k] == 0.0f ? 0.0f : at(c)[k];  // -0 and +0 are the same value
          std::memcpy(&bits, &x, sizeof bits);
          h = mix(h, bits);
        }
        hash[c] = h;
      }
      assign_classes(
          hash,
          [&](int64_t a, int64_t b) {
            const float *x = at(a), *y = at(b);
            for (int64_t k = 0; k < f; ++k)
              if (!(x[k] == y[k])) return false;
            return true;
          },
          order, representative, out + r * s);
    }
  }
  return classes;
}

torch::Tensor next_hop_classes(const torch::Tensor& classes, const ChangeCsr& csr, int64_t rows) {
  check_data(classes.dim() == 2 && classes.scalar_type() == torch::kLong, kConfigClassesWhere, "classes",
             "expected int64 [before, S]");
  check_data(csr.operand_offsets.size(0) == rows + 1 && csr.user_offsets.size(0) == rows + 1,
             kConfigClassesWhere, "csr", "expected " + std::to_string(rows) + " rows");
  const torch::Tensor in = classes.contiguous();
  const int64_t before = in.size(0), s = in.size(1);
  const int64_t* prev = in.data_ptr<int64_t>();
  const int64_t* op_off = csr.operand_offsets.data_ptr<int64_t>();
  const int64_t* op_idx = csr.operand_indices.data_ptr<int64_t>();
  const int64_t* us_off = csr.user_offsets.data_ptr<int64_t>();
  const int64_t* us_idx = csr.user_indices.data_ptr<int64_t>();
  check_entries_below(csr, before);
  torch::Tensor next = torch::empty({rows, s}, torch::kLong);
  int64_t* out = next.data_ptr<int64_t>();
#pragma omp parallel
  {
    std::vector<uint64_t> hash(static_cast<size_t>(s));
    std::vector<int64_t> order, representative, inputs;
#pragma omp for schedule(dynamic, 64)
    for (int64_t r = 0; r < rows; ++r) {
      // The input rows whose classes r combines: itself while reached, then its operands and
      // users reached before the hop.
      inputs.clear();
      if (r < before) inputs.push_back(r);
      inputs.insert(inputs.end(), op_idx + op_off[r], op_idx + op_off[r + 1]);
      inputs.insert(inputs.end(), us_idx + us_off[r], us_idx + us_off[r + 1]);
      std::fill(hash.begin(), hash.end(), 0);
      for (int64_t j : inputs) {
        const int64_t* row = prev + j * s;
        for (int64_t c = 0; c < s; ++c) hash[c] = mix(hash[c], static_cast<uint64_t>(row[c]));
      }
      assign_classes(
          hash,
          [&](int64_t a, int64_t b) {
            for (int64_t j : inputs)
              if (prev[j * s + a] != prev[j * s + b]) return false;
            return true;
          },
          order, representative, out + r * s);
    }
  }
  return next;
}

RowSharing row_sharing(const torch::Tensor& classes) {
  check_data(classes.dim() == 2 && classes.scalar_type() == torch::kLong, kConfigClassesWhere, "classes",
             "expected int64 [rows, S]");
  const torch::Tensor in = classes.contiguous();
  const int64_t rows = in.size(0), s = in.size(1);
  const int64_t* id = in.data_ptr<int64_t>();
  std::vector<int64_t> representatives;
  RowSharing sharing;
  sharing.spread = torch::empty({rows * s}, torch::kLong);
  int64_t* spread = sharing.spread.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t offset = static_cast<int64_t>(representatives.size());
    for (int64_t c = 0; c < s; ++c) {
      const int64_t k = id[r * s + c];
      // Ids count in order of first occurrence, so a new class is always the next one.
      if (k == static_cast<int64_t>(representatives.size()) - offset)
        representatives.push_back(r * s + c);
      // Per entry: test first, build the message only on failure.
      if (k < 0 || offset + k >= static_cast<int64_t>(representatives.size()))
        throw Error(kConfigClassesWhere, "classes", "ids must count from 0 in order of first occurrence");
      spread[r * s + c] = offset + k;
    }
  }
  sharing.distinct = static_cast<int64_t>(representatives.size());
  sharing.representatives = torch::empty({sharing.distinct}, torch::kLong);
  std::copy(representatives.begin(), representatives.end(),
            sharing.representatives.data_ptr<int64_t>());
  return sharing;
}

ClassRows class_rows(const torch::Tensor& classes) {
  ClassRows out;
  out.sharing = row_sharing(classes);
  out.rows = classes.size(0);
  out.slate = classes.size(1);
  const int64_t s = std::max<int64_t>(out.slate, 1);
  out.rows_of = torch::div(out.sharing.representatives, s, "floor");
  out.configs_of = torch::remainder(out.sharing.representatives, s);
  return out;
}

namespace {

// out[u] = sum_k scale[k] * in[column[k]] for k in [offsets[u], offsets[u + 1]), rows of width h,
// accumulated in double in k's order. Each output row is one thread's, so the result does not
// depend on the thread count.
template <typename T>
void sparse_rows_kernel(int64_t rows, const int64_t* offsets, const int64_t* column,
                        const double* scale, const T* in, int64_t h, T* out) {
#pragma omp parallel
  {
    std::vector<double> acc(static_cast<size_t>(h));
#pragma omp for schedule(dynamic, 256)
    for (int64_t u = 0; u < rows; ++u) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t k = offsets[u]; k < offsets[u + 1]; ++k)
        scaled_add(in + column[k] * h, scale[k], acc.data(), h);
      T* o = out + u * h;
      for (int64_t c = 0; c < h; ++c) o[c] = static_cast<T>(acc[c]);
    }
  }
}

// The product of a sparse matrix in CSR form (offsets [rows + 1], column and scale [nnz]) and
// the dense rows `in`.
torch::Tensor sparse_rows(const torch::Tensor& offsets, const torch::Tensor& column,
                          const torch::Tensor& scale, const torch::Tensor& in) {
  const torch::Tensor x = in.contiguous();
  const int64_t rows = offsets.size(0) - 1, h = x.size(1);
  torch::Tensor out = torch::empty({rows, h}, x.options());
  const int64_t* off = offsets.data_ptr<int64_t>();
  const int64_t* col = column.data_ptr<int64_t>();
  const double* sc = scale.data_ptr<double>();
  if (x.scalar_type() == torch::kDouble) {
    sparse_rows_kernel(rows, off, col, sc, x.data_ptr<double>(), h, out.data_ptr<double>());
  } else {
    sparse_rows_kernel(rows, off, col, sc, x.data_ptr<float>(), h, out.data_ptr<float>());
  }
  return out;
}

// blocks [columns, H] -> [rows, H] through a sparse matrix in CSR form; the backward multiplies
// by its transpose, built then (a stable counting sort of the entries by column, so its sums also
// run in a fixed order).
class SparseRowsFunction : public torch::autograd::Function<SparseRowsFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& blocks,
                               const torch::Tensor& offsets, const torch::Tensor& column,
                               const torch::Tensor& scale) {
    ctx->saved_data["offsets"] = offsets;
    ctx->saved_data["column"] = column;
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["columns"] = blocks.size(0);
    return sparse_rows(offsets, column, scale, blocks);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const torch::Tensor offsets = ctx->saved_data["offsets"].toTensor();
    const torch::Tensor column = ctx->saved_data["column"].toTensor();
    const torch::Tensor scale = ctx->saved_data["scale"].toTensor();
    const int64_t columns = ctx->saved_data["columns"].toInt(), rows = offsets.size(0) - 1;
    const int64_t nnz = column.size(0);
    const int64_t* off = offsets.data_ptr<int64_t>();
    const int64_t* col = column.data_ptr<int64_t>();
    const double* sc = scale.data_ptr<double>();
    torch::Tensor t_offsets = torch::zeros({columns + 1}, torch::kLong);
    torch::Tensor t_row = torch::empty({nnz}, torch::kLong);
    torch::Tensor t_scale = torch::empty({nnz}, torch::kDouble);
    int64_t* t_off = t_offsets.data_ptr<int64_t>();
    int64_t* t_r = t_row.data_ptr<int64_t>();
    double* t_sc = t_scale.data_ptr<double>();
    for (int64_t k = 0; k < nnz; ++k) ++t_off[col[k] + 1];
    for (int64_t c = 0; c < columns; ++c) t_off[c + 1] += t_off[c];
    std::vector<int64_t> next(t_off, t_off + columns);
    for (int64_t u = 0; u < rows; ++u) {
      for (int64_t k = off[u]; k < off[u + 1]; ++k) {
        const int64_t at = next[static_cast<size_t>(col[k])]++;
        t_r[at] = u;
        t_sc[at] = sc[k];
      }
    }
    return {sparse_rows(t_offsets, t_row, t_scale, grad_outputs[0]), torch::Tensor(),
            torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor class_change_aggregate(const torch::Tensor& projected, const ClassRows& before,
                                     const ClassRows& after, const ChangeCsr& csr) {
  check_data(projected.dim() == 2 && projected.size(0) == before.sharing.distinct &&
                 projected.size(1) % 3 == 0,
             kConfigClassesWhere, "projected",
             "expected [" + std::to_string(before.sharing.distinct) + ", 3H] for the entries");
  check_data(projected.scalar_type() == torch::kFloat || projected.scalar_type() == torch::kDouble,
             kConfigClassesWhere, "projected", "expected float32 or float64");
  check_data(before.slate == after.slate && csr.operand_offsets.size(0) == after.rows + 1 &&
                 csr.user_offsets.size(0) == after.rows + 1,
             kConfigClassesWhere, "classes", "the two levels and the csr disagree on rows or slate");
  check_entries_below(csr, before.rows);
  const int64_t s = after.slate, entries = after.sharing.distinct, h = projected.size(1) / 3;
  const auto [op_off, op_idx, us_off, us_idx, op_scale, us_scale] = forward_pointers(csr);
  const int64_t* rows_of = after.rows_of.data_ptr<int64_t>();
  const int64_t* configs_of = after.configs_of.data_ptr<int64_t>();
  const int64_t* spread = before.sharing.spread.data_ptr<int64_t>();
  // A sparse [U_after, 3 U_before] matrix over the projected blocks viewed as [3 U_before, H]:
  // row 3v + b is block b (self, operand mean, user mean) of entry v.
  std::vector<int64_t> offsets{0}, column;
  std::vector<double> scale;
  offsets.reserve(static_cast<size_t>(entries) + 1);
  auto add = [&](int64_t u, int64_t row, int64_t block, double weight) {
    column.push_back(3 * spread[row * s + configs_of[u]] + block);
    scale.push_back(weight);
  };
  for (int64_t u = 0; u < entries; ++u) {
    const int64_t r = rows_of[u];
    if (r < before.rows) add(u, r, 0, 1.0);
    for (int64_t k = op_off[r]; k < op_off[r + 1]; ++k) add(u, op_idx[k], 1, op_scale[r]);
    for (int64_t k = us_off[r]; k < us_off[r + 1]; ++k) add(u, us_idx[k], 2, us_scale[r]);
    offsets.push_back(static_cast<int64_t>(column.size()));
  }
  return SparseRowsFunction::apply(projected.contiguous().view({3 * before.sharing.distinct, h}),
                                   tensor_from(offsets),
                                   tensor_from(column),
                                   tensor_from(scale, torch::kDouble));
}

}  // namespace graphcost::model
