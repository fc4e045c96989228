#include "model/config_classes.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.h"

namespace graphcost::model {

namespace {

const char* kWhere = "config_classes";

std::atomic<bool> sharing_enabled{true};

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
               kWhere, "csr", "entries must lie in [0, " + std::to_string(before) + ")");
  }
}

}  // namespace

torch::Tensor configurable_node_classes(const torch::Tensor& config_values,
                                        const torch::Tensor& config_position) {
  check_data(config_values.dim() == 3 && config_values.scalar_type() == torch::kFloat, kWhere,
             "config_values", "expected float32 [S, nc, F]");
  check_data(config_position.dim() == 1 && config_position.scalar_type() == torch::kLong, kWhere,
             "config_position", "expected int64 [rows]");
  const torch::Tensor values = config_values.contiguous();
  const int64_t s = values.size(0), nc = values.size(1), f = values.size(2);
  const int64_t rows = config_position.size(0);
  const int64_t* position = config_position.data_ptr<int64_t>();
  check_data(rows == 0 || (config_position.min().item<int64_t>() >= 0 &&
                           config_position.max().item<int64_t>() < nc),
             kWhere, "config_position", "positions must lie in [0, " + std::to_string(nc) + ")");
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
  check_data(classes.dim() == 2 && classes.scalar_type() == torch::kLong, kWhere, "classes",
             "expected int64 [before, S]");
  check_data(csr.operand_offsets.size(0) == rows + 1 && csr.user_offsets.size(0) == rows + 1,
             kWhere, "csr", "expected " + std::to_string(rows) + " rows");
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
  check_data(classes.dim() == 2 && classes.scalar_type() == torch::kLong, kWhere, "classes",
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
      check_data(k >= 0 && offset + k < static_cast<int64_t>(representatives.size()), kWhere,
                 "classes", "ids must count from 0 in order of first occurrence");
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

torch::Tensor class_change_aggregate(const torch::Tensor& projected, const ClassRows& before,
                                     const ClassRows& after, const ChangeCsr& csr) {
  check_data(projected.dim() == 2 && projected.size(0) == before.sharing.distinct &&
                 projected.size(1) % 3 == 0,
             kWhere, "projected",
             "expected [" + std::to_string(before.sharing.distinct) + ", 3H] for the entries");
  check_data(before.slate == after.slate && csr.operand_offsets.size(0) == after.rows + 1 &&
                 csr.user_offsets.size(0) == after.rows + 1,
             kWhere, "classes", "the two levels and the csr disagree on rows or slate");
  check_entries_below(csr, before.rows);
  const int64_t s = after.slate, entries = after.sharing.distinct, h = projected.size(1) / 3;
  const auto [op_off, op_idx, us_off, us_idx, op_scale, us_scale] = forward_pointers(csr);
  const int64_t* rows_of = after.rows_of.data_ptr<int64_t>();
  const int64_t* configs_of = after.configs_of.data_ptr<int64_t>();
  const int64_t* spread = before.sharing.spread.data_ptr<int64_t>();
  // One sparse matrix [U_after, 3 U_before] over the projected blocks viewed as [3 U_before, H]:
  // row 3v + b is block b (self, operand mean, user mean) of entry v.
  std::vector<int64_t> out_index, in_index;
  std::vector<double> scale;
  auto add = [&](int64_t u, int64_t row, int64_t block, double weight) {
    out_index.push_back(u);
    in_index.push_back(3 * spread[row * s + configs_of[u]] + block);
    scale.push_back(weight);
  };
  for (int64_t u = 0; u < entries; ++u) {
    const int64_t r = rows_of[u];
    if (r < before.rows) add(u, r, 0, 1.0);
    for (int64_t k = op_off[r]; k < op_off[r + 1]; ++k) add(u, op_idx[k], 1, op_scale[r]);
    for (int64_t k = us_off[r]; k < us_off[r + 1]; ++k) add(u, us_idx[k], 2, us_scale[r]);
  }
  const int64_t nnz = static_cast<int64_t>(scale.size());
  torch::Tensor indices = torch::empty({2, nnz}, torch::kLong);
  std::copy(out_index.begin(), out_index.end(), indices[0].data_ptr<int64_t>());
  std::copy(in_index.begin(), in_index.end(), indices[1].data_ptr<int64_t>());
  torch::Tensor values = torch::empty({nnz}, torch::kDouble);
  std::copy(scale.begin(), scale.end(), values.data_ptr<double>());
  const torch::Tensor matrix =
      torch::sparse_coo_tensor(indices, values, {entries, 3 * before.sharing.distinct},
                               torch::TensorOptions().dtype(torch::kDouble))
          .coalesce();
  const torch::Tensor blocks =
      projected.to(torch::kDouble).reshape({3 * before.sharing.distinct, h});
  return torch::mm(matrix, blocks).to(projected.scalar_type());
}

void set_row_sharing(bool enabled) { sharing_enabled = enabled; }

bool row_sharing_enabled() { return sharing_enabled; }

}  // namespace graphcost::model
