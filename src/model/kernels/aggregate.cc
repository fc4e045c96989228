#include "model/kernels/aggregate.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "model/kernels/scaled_add.h"

namespace graphcost::model {

namespace {

const char* kAggregateWhere = "mean_aggregate";

template <typename T>
void neighbour_sum_kernel(const T* in, int64_t width, const int64_t* off, const int64_t* idx,
                          const double* source_weights, bool divide_by_degree, int64_t rows,
                          T* out) {
  // Accumulate in double: a node may have thousands of users in XLA graphs.
#pragma omp parallel
  {
    std::vector<double> acc(static_cast<size_t>(width));
#pragma omp for schedule(dynamic, 64)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t begin = off[r], end = off[r + 1];
      T* o = out + r * width;
      if (begin == end) {
        for (int64_t c = 0; c < width; ++c) o[c] = T(0);
        continue;
      }
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t k = begin; k < end; ++k) {
        const double w = source_weights ? source_weights[idx[k]] : 1.0;
        scaled_add(in + idx[k] * width, w, acc.data(), width);
      }
      const double scale = divide_by_degree ? 1.0 / static_cast<double>(end - begin) : 1.0;
      for (int64_t c = 0; c < width; ++c) o[c] = static_cast<T>(acc[c] * scale);
    }
  }
}

// The gradient of a mean over operands scatters back along users, each term weighted by
// 1 / deg_operands(user): a gather over the reverse CSR, so no atomics are needed.
class MeanAggregateFunction : public torch::autograd::Function<MeanAggregateFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& input,
                               const torch::Tensor& offsets, const torch::Tensor& indices,
                               const torch::Tensor& reverse_offsets,
                               const torch::Tensor& reverse_indices) {
    ctx->save_for_backward({offsets, reverse_offsets, reverse_indices});
    ctx->mark_non_differentiable({offsets, indices, reverse_offsets, reverse_indices});
    std::vector<int64_t> shape = input.sizes().vec();
    shape[0] = offsets.size(0) - 1;
    torch::Tensor out = torch::empty(shape, input.options());
    weighted_neighbour_sum(input, offsets, indices, nullptr, true, out);
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& offsets = saved[0];
    const torch::Tensor& reverse_offsets = saved[1];
    const torch::Tensor& reverse_indices = saved[2];
    const torch::Tensor grad = grad_outputs[0].contiguous();
    const int64_t num_out = offsets.size(0) - 1;
    const int64_t* off = offsets.data_ptr<int64_t>();
    std::vector<double> inverse_degree(static_cast<size_t>(num_out));
    for (int64_t r = 0; r < num_out; ++r) {
      const int64_t d = off[r + 1] - off[r];
      inverse_degree[r] = d > 0 ? 1.0 / static_cast<double>(d) : 0.0;
    }
    std::vector<int64_t> shape = grad.sizes().vec();
    shape[0] = reverse_offsets.size(0) - 1;
    torch::Tensor grad_input = torch::empty(shape, grad.options());
    weighted_neighbour_sum(grad, reverse_offsets, reverse_indices, inverse_degree.data(), false,
                           grad_input);
    return {grad_input, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

void check_csr(const char* where, const torch::Tensor& offsets, const torch::Tensor& indices,
               int64_t rows, int64_t num_targets, const std::string& name) {
  check_data(offsets.defined() && indices.defined(), where, name, "undefined tensor");
  check_data(offsets.scalar_type() == torch::kLong && indices.scalar_type() == torch::kLong, where,
             name, "offsets and indices must be int64");
  check_data(offsets.dim() == 1 && indices.dim() == 1, where, name,
             "offsets and indices must be 1-D");
  check_data(offsets.is_contiguous() && indices.is_contiguous(), where, name, "must be contiguous");
  check_data(offsets.device().is_cpu() && indices.device().is_cpu(), where, name,
             "must be on the CPU");
  if (rows >= 0) {
    check_data(offsets.size(0) == rows + 1, where, name,
               "offsets has " + std::to_string(offsets.size(0)) + " entries, expected " +
                   std::to_string(rows + 1));
  }
  check_data(offsets.size(0) >= 1, where, name, "offsets must have at least one entry");
  const int64_t* off = offsets.data_ptr<int64_t>();
  const int64_t n = offsets.size(0) - 1;
  check_data(off[0] == 0 && off[n] == indices.size(0), where, name,
             "offsets must start at 0 and end at the number of indices");
  // These run on every call over every index: test first, build the message only on failure.
  for (int64_t r = 0; r < n; ++r)
    if (off[r] > off[r + 1]) throw Error(where, name, "offsets decrease");
  const int64_t* idx = indices.data_ptr<int64_t>();
  for (int64_t k = 0; k < indices.size(0); ++k) {
    if (idx[k] < 0 || idx[k] >= num_targets)
      throw Error(where, name,
                  "index " + std::to_string(idx[k]) + " out of range [0, " +
                      std::to_string(num_targets) + ")");
  }
}

void check_aggregate_inputs(const torch::Tensor& input, const torch::Tensor& offsets,
                            const torch::Tensor& indices, const torch::Tensor& reverse_offsets,
                            const torch::Tensor& reverse_indices) {
  check_data(input.defined(), kAggregateWhere, "input", "undefined tensor");
  check_data(input.dim() == 2 || input.dim() == 3, kAggregateWhere, "input",
             "expected [n, C] or [n, S, C], got " + std::to_string(input.dim()) + " dims");
  check_data(input.scalar_type() == torch::kFloat || input.scalar_type() == torch::kDouble, kAggregateWhere,
             "input", "expected float32 or float64");
  check_data(input.is_contiguous(), kAggregateWhere, "input", "must be contiguous");
  check_data(input.device().is_cpu(), kAggregateWhere, "input", "must be on the CPU");
  const int64_t num_in = input.size(0);
  check_data(offsets.defined() && offsets.dim() == 1 && offsets.size(0) >= 1, kAggregateWhere, "offsets",
             "expected [num_out + 1] entries");
  const int64_t num_out = offsets.size(0) - 1;
  check_csr(kAggregateWhere, offsets, indices, num_out, num_in, "offsets/indices");
  check_csr(kAggregateWhere, reverse_offsets, reverse_indices, num_in, num_out,
            "reverse_offsets/reverse_indices");
  check_data(indices.size(0) == reverse_indices.size(0), kAggregateWhere, "reverse_indices",
             "the reverse CSR must have as many entries as the forward one");
}

void weighted_neighbour_sum(const torch::Tensor& input, const torch::Tensor& offsets,
                            const torch::Tensor& indices, const double* source_weights,
                            bool divide_by_degree, torch::Tensor& out) {
  const int64_t rows = offsets.size(0) - 1;
  int64_t width = 1;
  for (int64_t d = 1; d < input.dim(); ++d) width *= input.size(d);
  if (input.scalar_type() == torch::kFloat) {
    neighbour_sum_kernel(input.data_ptr<float>(), width, offsets.data_ptr<int64_t>(),
                         indices.data_ptr<int64_t>(), source_weights, divide_by_degree, rows,
                         out.data_ptr<float>());
  } else {
    neighbour_sum_kernel(input.data_ptr<double>(), width, offsets.data_ptr<int64_t>(),
                         indices.data_ptr<int64_t>(), source_weights, divide_by_degree, rows,
                         out.data_ptr<double>());
  }
}

torch::Tensor mean_aggregate(const torch::Tensor& input, const torch::Tensor& offsets,
                             const torch::Tensor& indices, const torch::Tensor& reverse_offsets,
                             const torch::Tensor& reverse_indices) {
  check_aggregate_inputs(input, offsets, indices, reverse_offsets, reverse_indices);
  return MeanAggregateFunction::apply(input, offsets, indices, reverse_offsets, reverse_indices);
}

}  // namespace graphcost::model
