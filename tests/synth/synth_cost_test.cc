// Hand-checked cases of the synthetic cost models (docs/synthetic.md).
#include <gtest/gtest.h>

#include "synth/layout_cost.h"
#include "synth/program_builder.h"
#include "synth/tile_kernel.h"

namespace graphcost::synth {
namespace {

TEST(LayoutCost, PaddedElementsUseEightByOneTwentyEightTiles) {
  const int8_t minor_first[] = {1, 2, 0};
  // Minor dim 130 -> 256 lanes, second-minor 3 -> 8 sublanes, the rest (5) as is.
  EXPECT_EQ(padded_elements({5, 130, 3}, minor_first), 5.0 * 256 * 8);
  const int8_t one[] = {0};
  EXPECT_EQ(padded_elements({3}, one), 128.0);
  EXPECT_EQ(padded_elements({}, one), 1.0);
}

TEST(LayoutCost, LargeMinorDimLowersNodeCost) {
  LayoutCostParams params;
  params.bandwidth_bytes_per_ns = 1e300;  // isolate the compute term
  params.flops_per_ns = 1.0;
  params.node_overhead_ns = 0.0;
  Instruction a, w, out;
  a.dims = {256, 64};
  w.dims = {64, 8};
  out.opcode = opcode::kDot;
  out.dims = {256, 8};
  const int8_t row_major[] = {1, 0}, column_major[] = {0, 1};
  // Contraction sqrt(256*64 * 64*8 / (256*8)) = 64; 2 * 64 * padded output elements.
  // Default: minor 8 -> 128 lanes, 256 rows: 32768 elements. Swapped: 256 x (8 -> 8): 2048.
  EXPECT_DOUBLE_EQ(configurable_node_cost_ns(out, &a, &w, row_major, row_major, row_major, params),
                   2.0 * 64 * 32768);
  EXPECT_DOUBLE_EQ(
      configurable_node_cost_ns(out, &a, &w, column_major, row_major, row_major, params),
      2.0 * 64 * 2048);
}

// param [8, 256] -> transpose [256, 8] (configurable) -> negate -> root tuple.
class TransposeProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    Random random(1);
    ProgramBuilder b(random);
    const int32_t p = b.parameter({8, 256}, element_type::kF32);
    const int32_t t = b.transpose(p, {1, 0});
    const int32_t n = b.elementwise(opcode::kNegate, t);
    b.set_root(b.tuple({n}));
    nodes_ = b.finish().flatten();
    params_.bandwidth_bytes_per_ns = 1.0;
    params_.flops_per_ns = 1.0;
    params_.node_overhead_ns = 0.0;
    params_.copy_overhead_ns = 1000.0;
  }
  double runtime(std::vector<int8_t> transpose_layouts) {
    LayoutCostModel model(nodes_, {1}, params_);
    transpose_layouts.resize(18, -1);
    return model.runtime_ns(transpose_layouts.data());
  }
  LayoutCostTerms terms(std::vector<int8_t> transpose_layouts) {
    LayoutCostModel model(nodes_, {1}, params_);
    transpose_layouts.resize(18, -1);
    return model.terms_ns(transpose_layouts.data());
  }
  std::vector<Instruction> nodes_;
  LayoutCostParams params_;
};

TEST_F(TransposeProgram, DefaultLayoutCost) {
  // Transpose: output [256, 8] minor 8 -> 128: 32768 el * 4 B; input [8, 256]: 2048 el * 4 B.
  // Negate inherits the output layout: 4 B * (1 + 1 operand) * 32768. The tuple wants the
  // default layout, which it gets: no copy.
  const double expected = 32768 * 4 + 2048 * 4 + 8.0 * 32768;
  EXPECT_DOUBLE_EQ(runtime({}), expected);
  // Writing the default permutation out explicitly is the same configuration.
  EXPECT_DOUBLE_EQ(runtime({1, 0, -1, -1, -1, -1, 1, 0}), expected);
}

TEST_F(TransposeProgram, LargeMinorOutputPaysOneCopy) {
  // Output minor dim 256: 2048 el; negate follows it (2048 el); the tuple's operand must be
  // copied back to the default layout: 1000 + 4 B * (2048 + 32768).
  const double expected = 2048 * 4 + 2048 * 4 + 8.0 * 2048 + 1000 + 4.0 * (2048 + 32768);
  EXPECT_DOUBLE_EQ(runtime({0, 1}), expected);
  EXPECT_LT(runtime({0, 1}), runtime({}));
  // By term: the transpose's own traffic, the negate following its layout, the copy; the
  // parameter and the tuple are free, so nothing is fixed.
  const LayoutCostTerms split = terms({0, 1});
  EXPECT_DOUBLE_EQ(split.fixed_ns, 0.0);
  EXPECT_DOUBLE_EQ(split.nodes_ns, 2048 * 4 + 2048 * 4);
  EXPECT_DOUBLE_EQ(split.followers_ns, 8.0 * 2048);
  EXPECT_DOUBLE_EQ(split.copies_ns, 1000 + 4.0 * (2048 + 32768));
}

TEST_F(TransposeProgram, SmallMinorInputCostsTraffic) {
  // Input [8, 256] with dim 0 (8) minor: 128 * 256 el; the parameter must be copied into it.
  const double expected = 32768 * 4 + 32768 * 4 + 8.0 * 32768 + 1000 + 4.0 * (2048 + 32768);
  EXPECT_DOUBLE_EQ(runtime({-1, -1, -1, -1, -1, -1, 0, 1}), expected);
  const LayoutCostTerms split = terms({-1, -1, -1, -1, -1, -1, 0, 1});
  EXPECT_DOUBLE_EQ(split.nodes_ns, 32768 * 4 + 32768 * 4);
  EXPECT_DOUBLE_EQ(split.followers_ns, 8.0 * 32768);
  EXPECT_DOUBLE_EQ(split.copies_ns, 1000 + 4.0 * (2048 + 32768));
}

TEST_F(TransposeProgram, PartialLayoutMeansDefault) {
  EXPECT_DOUBLE_EQ(runtime({0, -1}), runtime({}));
  EXPECT_DOUBLE_EQ(runtime({1, 1}), runtime({}));
}

TEST(TileCost, PaddingAndOverheadAndBudget) {
  TileKernel kernel;
  kernel.kind = KernelKind::Elementwise;
  kernel.output_dims = {64, 256};
  kernel.element_bytes = 4;
  kernel.epilogue_ops = 1;
  TileCostParams params;
  params.launch_ns = 0;
  params.step_overhead_ns = 10;
  params.bandwidth_bytes_per_ns = 1;
  params.vector_ops_per_ns = 1e300;
  params.fast_memory_bytes = 1e12;
  // Tile [8, 128]: 16 tiles; each moves out 1024 + in 2048 elements of 4 B.
  TileConfig exact{{8, 128}, 1};
  EXPECT_DOUBLE_EQ(tile_runtime_ns(kernel, exact, params), 16 * 10 + 16 * 3072 * 4.0);
  // Tile [8, 100]: 3 tiles along 256, each 100-wide tile padded to 128 lanes: more traffic.
  TileConfig padded{{8, 100}, 1};
  EXPECT_DOUBLE_EQ(tile_runtime_ns(kernel, padded, params), 24 * 10 + 24 * 3.0 * 1024 * 4);
  EXPECT_GT(tile_runtime_ns(kernel, padded, params), tile_runtime_ns(kernel, exact, params));
  // Over the fast-memory budget the traffic grows by 1 + 2 * (footprint / budget - 1).
  params.fast_memory_bytes = 2.0 * (1024 * 4 + 2048 * 4) / 2;  // half the footprint
  EXPECT_DOUBLE_EQ(tile_runtime_ns(kernel, exact, params), 16 * 10 + 16 * 3072 * 4.0 * 3);
}

}  // namespace
}  // namespace graphcost::synth
