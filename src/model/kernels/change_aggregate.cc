#include "model/kernels/change_aggregate.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "model/kernels/aggregate.h"
#include "model/kernels/scaled_add.h"

namespace graphcost::model {

ChangeCsrPointers forward_pointers(const ChangeCsr& csr) {
  return {csr.operand_offsets.data_ptr<int64_t>(), csr.operand_indices.data_ptr<int64_t>(),
          csr.user_offsets.data_ptr<int64_t>(),    csr.user_indices.data_ptr<int64_t>(),
          csr.operand_scale.data_ptr<double>(),    csr.user_scale.data_ptr<double>()};
}

ChangeCsrPointers reverse_pointers(const ChangeCsr& csr) {
  return {csr.operand_reverse_offsets.data_ptr<int64_t>(),
          csr.operand_reverse_indices.data_ptr<int64_t>(),
          csr.user_reverse_offsets.data_ptr<int64_t>(),
          csr.user_reverse_indices.data_ptr<int64_t>(),
          csr.operand_scale.data_ptr<double>(),
          csr.user_scale.data_ptr<double>()};
}

namespace {

const char* kChangeAggregateWhere = "change_aggregate";

// Shape of one input row: `groups` groups (S, or 1 for a 2-D input) of 3 blocks of `width`.
struct RowShape {
  int64_t groups = 1, width = 0;
  int64_t in_row() const { return groups * 3 * width; }
  int64_t out_row() const { return groups * width; }
};

// acc[g * width + c] += scale * in[g * 3 * width + block * width + c] for every group g.
template <typename T>
void add_block(const T* in, const RowShape& shape, int64_t block, double scale, double* acc) {
  for (int64_t g = 0; g < shape.groups; ++g) {
    scaled_add(in + (g * 3 + block) * shape.width, scale, acc + g * shape.width, shape.width);
  }
}

template <typename T>
void forward_kernel(const T* p, const T* base, const RowShape& shape, int64_t before,
                    int64_t rows, const ChangeCsr& csr, T* out) {
  const auto [op_off, op_idx, us_off, us_idx, op_scale, us_scale] = forward_pointers(csr);
  const int64_t in_row = shape.in_row(), out_row = shape.out_row();
#pragma omp parallel
  {
    std::vector<double> acc(static_cast<size_t>(out_row));
#pragma omp for schedule(dynamic, 64)
    for (int64_t r = 0; r < rows; ++r) {
      if (base == nullptr) {
        std::fill(acc.begin(), acc.end(), 0.0);
      } else {
        const T* b = base + r * shape.width;
        for (int64_t g = 0; g < shape.groups; ++g)
          for (int64_t c = 0; c < shape.width; ++c)
            acc[g * shape.width + c] = static_cast<double>(b[c]);
      }
      if (r < before) add_block(p + r * in_row, shape, 0, 1.0, acc.data());
      for (int64_t k = op_off[r]; k < op_off[r + 1]; ++k)
        add_block(p + op_idx[k] * in_row, shape, 1, op_scale[r], acc.data());
      for (int64_t k = us_off[r]; k < us_off[r + 1]; ++k)
        add_block(p + us_idx[k] * in_row, shape, 2, us_scale[r], acc.data());
      T* o = out + r * out_row;
      for (int64_t c = 0; c < out_row; ++c) o[c] = static_cast<T>(acc[c]);
    }
  }
}

// grad_base[r] = sum over the groups of grad[r] (the base is broadcast over them).
template <typename T>
void base_backward_kernel(const T* grad, const RowShape& shape, int64_t rows, T* grad_base) {
  const int64_t out_row = shape.out_row(), w = shape.width;
#pragma omp parallel
  {
    std::vector<double> acc(static_cast<size_t>(w));
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const T* g = grad + r * out_row;
      for (int64_t k = 0; k < shape.groups; ++k) scaled_add(g + k * w, 1.0, acc.data(), w);
      T* o = grad_base + r * w;
      for (int64_t c = 0; c < w; ++c) o[c] = static_cast<T>(acc[c]);
    }
  }
}

// grad_p[j] = (grad[j], sum over op-users r of op_scale[r] grad[r], same over user-operands).
template <typename T>
void backward_kernel(const T* grad, const RowShape& shape, int64_t before, const ChangeCsr& csr,
                     T* grad_p) {
  const auto [op_off, op_idx, us_off, us_idx, op_scale, us_scale] = reverse_pointers(csr);
  const int64_t in_row = shape.in_row(), out_row = shape.out_row(), w = shape.width;
#pragma omp parallel
  {
    std::vector<double> op_acc(static_cast<size_t>(out_row)), us_acc(static_cast<size_t>(out_row));
#pragma omp for schedule(dynamic, 64)
    for (int64_t j = 0; j < before; ++j) {
      std::fill(op_acc.begin(), op_acc.end(), 0.0);
      std::fill(us_acc.begin(), us_acc.end(), 0.0);
      for (int64_t k = op_off[j]; k < op_off[j + 1]; ++k) {
        const int64_t r = op_idx[k];
        scaled_add(grad + r * out_row, op_scale[r], op_acc.data(), out_row);
      }
      for (int64_t k = us_off[j]; k < us_off[j + 1]; ++k) {
        const int64_t r = us_idx[k];
        scaled_add(grad + r * out_row, us_scale[r], us_acc.data(), out_row);
      }
      const T* self = grad + j * out_row;
      T* o = grad_p + j * in_row;
      for (int64_t g = 0; g < shape.groups; ++g) {
        for (int64_t c = 0; c < w; ++c) {
          o[(g * 3) * w + c] = self[g * w + c];
          o[(g * 3 + 1) * w + c] = static_cast<T>(op_acc[g * w + c]);
          o[(g * 3 + 2) * w + c] = static_cast<T>(us_acc[g * w + c]);
        }
      }
    }
  }
}

RowShape row_shape(const torch::Tensor& projected) {
  RowShape shape;
  if (projected.dim() == 3) shape.groups = projected.size(1);
  shape.width = projected.size(-1) / 3;
  return shape;
}

class ChangeAggregateFunction : public torch::autograd::Function<ChangeAggregateFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx,
                               const torch::Tensor& projected, const torch::Tensor& base,
                               const ChangeCsr* csr, int64_t rows) {
    // The backward needs the reverse CSRs and the scales; the plan holding them may be gone by
    // then, so the context keeps its own references.
    ctx->saved_data["operand_reverse_offsets"] = csr->operand_reverse_offsets;
    ctx->saved_data["operand_reverse_indices"] = csr->operand_reverse_indices;
    ctx->saved_data["user_reverse_offsets"] = csr->user_reverse_offsets;
    ctx->saved_data["user_reverse_indices"] = csr->user_reverse_indices;
    ctx->saved_data["operand_scale"] = csr->operand_scale;
    ctx->saved_data["user_scale"] = csr->user_scale;
    ctx->saved_data["before"] = projected.size(0);
    const bool has_base = base.numel() > 0;
    const RowShape shape = row_shape(projected);
    std::vector<int64_t> out_shape = projected.sizes().vec();
    out_shape[0] = rows;
    out_shape.back() = shape.width;
    torch::Tensor out = torch::empty(out_shape, projected.options());
    forward_kernel(projected.data_ptr<float>(), has_base ? base.data_ptr<float>() : nullptr,
                   shape, projected.size(0), rows, *csr, out.data_ptr<float>());
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    ChangeCsr csr;
    csr.operand_reverse_offsets = ctx->saved_data["operand_reverse_offsets"].toTensor();
    csr.operand_reverse_indices = ctx->saved_data["operand_reverse_indices"].toTensor();
    csr.user_reverse_offsets = ctx->saved_data["user_reverse_offsets"].toTensor();
    csr.user_reverse_indices = ctx->saved_data["user_reverse_indices"].toTensor();
    csr.operand_scale = ctx->saved_data["operand_scale"].toTensor();
    csr.user_scale = ctx->saved_data["user_scale"].toTensor();
    const int64_t before = ctx->saved_data["before"].toInt();
    const torch::Tensor grad = grad_outputs[0].contiguous();
    RowShape shape;
    if (grad.dim() == 3) shape.groups = grad.size(1);
    shape.width = grad.size(-1);
    std::vector<int64_t> in_shape = grad.sizes().vec();
    in_shape[0] = before;
    in_shape.back() = 3 * shape.width;
    torch::Tensor grad_p = torch::empty(in_shape, grad.options());
    backward_kernel(grad.data_ptr<float>(), shape, before, csr, grad_p.data_ptr<float>());
    torch::Tensor grad_base;
    if (ctx->needs_input_grad(1)) {  // never for the empty "no base" tensor
      grad_base = torch::empty({grad.size(0), shape.width}, grad.options());
      base_backward_kernel(grad.data_ptr<float>(), shape, grad.size(0),
                           grad_base.data_ptr<float>());
    }
    return {grad_p, grad_base, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor change_aggregate(const torch::Tensor& projected, const ChangeCsr& csr, int64_t rows,
                               const torch::Tensor& base) {
  check_data(projected.defined() && (projected.dim() == 2 || projected.dim() == 3) &&
                 projected.size(-1) % 3 == 0 && projected.scalar_type() == torch::kFloat &&
                 projected.is_contiguous() && projected.device().is_cpu(),
             kChangeAggregateWhere, "projected", "expected a contiguous float32 CPU tensor [before, (S,) 3H]");
  const int64_t before = projected.size(0);
  check_data(rows >= before, kChangeAggregateWhere, "rows", "fewer output rows than changed rows");
  check_csr(kChangeAggregateWhere, csr.operand_offsets, csr.operand_indices, rows, before, "operand");
  check_csr(kChangeAggregateWhere, csr.user_offsets, csr.user_indices, rows, before, "user");
  check_csr(kChangeAggregateWhere, csr.operand_reverse_offsets, csr.operand_reverse_indices, before, rows,
            "operand_reverse");
  check_csr(kChangeAggregateWhere, csr.user_reverse_offsets, csr.user_reverse_indices, before, rows,
            "user_reverse");
  for (const torch::Tensor* scale : {&csr.operand_scale, &csr.user_scale})
    check_data(scale->defined() && scale->scalar_type() == torch::kDouble && scale->dim() == 1 &&
                   scale->size(0) == rows && scale->is_contiguous(),
               kChangeAggregateWhere, "scale", "expected contiguous float64 [rows]");
  if (base.defined()) {
    check_data(base.scalar_type() == torch::kFloat && base.dim() == 2 && base.size(0) == rows &&
                   base.size(1) == projected.size(-1) / 3 && base.is_contiguous() &&
                   base.device().is_cpu(),
               kChangeAggregateWhere, "base", "expected a contiguous float32 CPU tensor [rows, H]");
  }
  // An autograd input must be a defined tensor: no base travels as an empty one.
  return ChangeAggregateFunction::apply(projected, base.defined() ? base : torch::empty({0}),
                                        &csr, rows);
}

}  // namespace graphcost::model
