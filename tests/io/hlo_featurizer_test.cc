// The HLO featurizer on small hand-built modules, with hand-computed expected columns.
#include "io/hlo_featurizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "io/hlo_opcodes.h"

namespace graphcost::io {
namespace {

pb::HloInstructionProto* add_instruction(pb::HloComputationProto* computation, int64_t id,
                                         const std::string& opcode,
                                         const std::vector<int64_t>& operands = {}) {
  auto* instruction = computation->add_instructions();
  instruction->set_id(id);
  instruction->set_name(opcode + "." + std::to_string(id));
  instruction->set_opcode(opcode);
  instruction->mutable_shape()->set_element_type(11);  // f32
  for (const int64_t operand : operands) instruction->add_operand_ids(operand);
  return instruction;
}

// A reducer computation (ids 0..2) called by a while-named computation (ids 10..13).
pb::HloModuleProto two_computation_module() {
  pb::HloModuleProto module;
  module.set_name("tiny");
  auto* reducer = module.add_computations();
  reducer->set_name("add_reducer");
  reducer->set_id(1);
  reducer->set_root_id(2);
  add_instruction(reducer, 0, "parameter");
  add_instruction(reducer, 1, "parameter")->set_parameter_number(1);
  add_instruction(reducer, 2, "add", {0, 1});
  auto* body = module.add_computations();
  body->set_name("while_body");
  body->set_id(2);
  body->set_root_id(13);
  add_instruction(body, 10, "parameter");
  add_instruction(body, 11, "not-an-opcode", {10});
  auto* reduce = add_instruction(body, 12, "reduce", {11, 10, 11});  // 11 twice: one edge
  reduce->add_called_computation_ids(1);
  add_instruction(body, 13, "tuple", {12});
  return module;
}

TEST(HloOpcodes, DatasetNumbering) {
  EXPECT_EQ(hlo_opcode_id("abs"), 1);
  EXPECT_EQ(hlo_opcode_id("convolution"), 26);
  EXPECT_EQ(hlo_opcode_id("reshape"), 75);
  EXPECT_EQ(hlo_opcode_id("transpose"), 98);  // 97 is a retired opcode
  EXPECT_EQ(hlo_opcode_id("tan"), 120);
  EXPECT_EQ(hlo_opcode_id("no-such-op"), 0);
  EXPECT_EQ(hlo_opcode_name(41), "fusion");
  EXPECT_EQ(hlo_opcode_name(0), "unknown");
  EXPECT_EQ(hlo_opcode_count(), 121);
}

TEST(HloFeaturizer, NodeOrderEdgesAndSplits) {
  const auto result = featurize_hlo_module(two_computation_module(), FeatureSet::Standard, "t");
  const auto& graph = result.graph;
  ASSERT_EQ(graph.num_nodes, 7);
  EXPECT_EQ(graph.feature_width, 140);
  EXPECT_EQ(graph.opcodes, (std::vector<int32_t>{63, 63, 2, 63, 0, 70, 100}));
  // [consumer, operand], sorted, operand 11 of the reduce kept once, plus reduce -> root of
  // the reducer (node 2).
  EXPECT_EQ(graph.edges, (std::vector<int32_t>{2, 0, 2, 1, 4, 3, 5, 2, 5, 3, 5, 4, 6, 5}));
  // The reducer's name matches none of cluster/while/cond: no split after it.
  EXPECT_EQ(graph.node_splits, (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(result.node_of_instruction.at(12), 5);
  // Roots: node 2 (root of the reducer) and node 6 (root of the body).
  for (int64_t node = 0; node < graph.num_nodes; ++node) {
    EXPECT_EQ(graph.features(node)[0], node == 2 || node == 6 ? 1.0f : 0.0f) << node;
  }
  EXPECT_EQ(graph.features(1)[30], 1.0f);  // parameter_number
}

TEST(HloFeaturizer, SplitsAfterNamedComputations) {
  auto module = two_computation_module();
  module.mutable_computations(0)->set_name("cond_reducer");
  const auto graph = featurize_hlo_module(module, FeatureSet::Standard, "t").graph;
  EXPECT_EQ(graph.node_splits, (std::vector<int64_t>{0, 3, 7}));
}

TEST(HloFeaturizer, StandardColumns) {
  pb::HloModuleProto module;
  auto* computation = module.add_computations();
  computation->set_root_id(1);
  add_instruction(computation, 0, "parameter");
  auto* conv = add_instruction(computation, 1, "convolution", {0});
  auto* shape = conv->mutable_shape();
  shape->set_element_type(16);  // bf16: one-hot column 2 + 13
  for (const int64_t d : {2, 3, 4}) shape->add_dimensions(d);
  for (const int64_t d : {2, 0, 1}) shape->mutable_layout()->add_minor_to_major(d);
  conv->add_dimensions(5);
  for (int i = 0; i < 2; ++i) {
    auto* window = conv->mutable_window()->add_dimensions();
    window->set_size(3);
    window->set_stride(2);
    window->set_padding_low(i);
    window->set_window_reversal(i == 1);
  }
  auto* numbers = conv->mutable_convolution_dimension_numbers();
  numbers->set_input_feature_dimension(3);
  numbers->add_input_spatial_dimensions(1);
  numbers->add_input_spatial_dimensions(2);
  numbers->set_kernel_output_feature_dimension(7);
  numbers->set_output_feature_dimension(9);
  conv->set_feature_group_count(4);
  conv->set_batch_group_count(5);
  auto* slice = conv->add_slice_dimensions();
  slice->set_start(1);
  slice->set_limit(8);
  slice->set_stride(2);
  conv->add_dynamic_slice_sizes(6);
  conv->add_dynamic_slice_sizes(7);
  auto* padding = conv->mutable_padding_config()->add_dimensions();
  padding->set_edge_padding_low(-1);
  padding->set_edge_padding_high(3);
  conv->set_is_stable(true);

  const auto graph = featurize_hlo_module(module, FeatureSet::Standard, "t").graph;
  std::vector<float> expected(140, 0.0f);
  expected[0] = 1;   // root
  expected[15] = 1;  // bf16
  expected[21] = 2, expected[22] = 3, expected[23] = 4, expected[27] = 9, expected[28] = 24;
  expected[31] = 5;                                                        // dimensions
  expected[37] = 3, expected[38] = 3, expected[43] = 6, expected[44] = 9;  // window size
  expected[45] = 2, expected[46] = 2, expected[51] = 4, expected[52] = 4;  // stride
  expected[54] = 1, expected[59] = 1, expected[60] = 0;                    // padding low
  expected[67] = 0, expected[68] = 0;                    // padding high: sum 0, product 0*0
  expected[75] = 0, expected[76] = 0;                    // window dilation (unset = 0)
  expected[83] = 0, expected[84] = 0;                    // base dilation
  expected[86] = 1, expected[91] = 1, expected[92] = 1;  // reversal: [0, 1], 1 true, 1 false
  expected[94] = 3, expected[95] = 1, expected[96] = 2, expected[100] = 7, expected[106] = 9;
  expected[107] = 4, expected[108] = 5;
  expected[109] = 1, expected[111] = 1, expected[112] = 1;  // slice start
  expected[113] = 2, expected[115] = 2, expected[116] = 2;  // slice stride
  expected[117] = 8, expected[119] = 8, expected[120] = 8;  // slice limit
  expected[121] = 6, expected[122] = 7, expected[123] = 13, expected[124] = 42;
  expected[125] = -1, expected[127] = -1, expected[128] = -1;  // edge padding low
  expected[129] = 3, expected[131] = 3, expected[132] = 3;     // edge padding high
  expected[133] = 1;
  expected[134] = 2, expected[135] = 0, expected[136] = 1;
  const std::vector<float> actual(graph.features(1), graph.features(1) + 140);
  for (int c = 0; c < 140; ++c) EXPECT_EQ(actual[c], expected[c]) << "column " << c;

  // The parameter: f32, a scalar (empty dimension list: sum 0, product 1), empty lists.
  std::vector<float> parameter(140, 0.0f);
  parameter[13] = 1;  // f32
  for (const int c : {28, 44, 52, 60, 68, 76, 84, 112, 116, 120, 124, 128, 132}) parameter[c] = 1;
  const std::vector<float> actual_parameter(graph.features(0), graph.features(0) + 140);
  for (int c = 0; c < 140; ++c) EXPECT_EQ(actual_parameter[c], parameter[c]) << "column " << c;
}

TEST(HloFeaturizer, ExtendedColumns) {
  pb::HloModuleProto module;
  auto* computation = module.add_computations();
  computation->set_root_id(0);
  auto* dot = add_instruction(computation, 0, "dot");
  for (const int64_t d : {300, 128, 7}) dot->mutable_shape()->add_dimensions(d);
  auto* numbers = dot->mutable_dot_dimension_numbers();
  numbers->add_lhs_contracting_dimensions(1);
  numbers->add_rhs_contracting_dimensions(0);
  numbers->add_lhs_batch_dimensions(2);
  numbers->add_rhs_batch_dimensions(3);
  auto* gather = dot->mutable_gather_dimension_numbers();
  gather->add_offset_dims(4);
  gather->add_collapsed_slice_dims(5);
  gather->add_start_index_map(6);
  gather->set_index_vector_dim(7);
  dot->add_gather_slice_sizes(8);

  const auto standard = featurize_hlo_module(module, FeatureSet::Standard, "t").graph;
  const auto graph = featurize_hlo_module(module, FeatureSet::Extended, "t").graph;
  ASSERT_EQ(graph.feature_width, 176);
  for (int c = 0; c < 140; ++c) EXPECT_EQ(graph.features(0)[c], standard.features(0)[c]) << c;
  std::vector<float> extra(36, 0.0f);
  extra[0] = 1, extra[2] = 0, extra[4] = 2, extra[6] = 3;  // dot: lhs/rhs contracting, batch
  extra[8] = 4, extra[11] = 5, extra[14] = 6, extra[17] = 7, extra[18] = 8;  // gather
  extra[24] = 300 % 128, extra[25] = 0, extra[26] = 7;                       // dims % 128
  extra[30] = 2, extra[31] = 1, extra[32] = 0;                               // dims / 128
  for (int c = 0; c < 36; ++c) EXPECT_EQ(graph.features(0)[140 + c], extra[c]) << 140 + c;
}

TEST(HloFeaturizer, DanglingIdsAreErrors) {
  auto module = two_computation_module();
  module.mutable_computations(1)->mutable_instructions(1)->add_operand_ids(99);
  EXPECT_THROW(featurize_hlo_module(module, FeatureSet::Standard, "t"), Error);
  module = two_computation_module();
  module.mutable_computations(1)->mutable_instructions(2)->add_called_computation_ids(42);
  EXPECT_THROW(featurize_hlo_module(module, FeatureSet::Standard, "t"), Error);
  module = two_computation_module();
  module.mutable_computations(1)->mutable_instructions(0)->set_id(0);  // duplicate id
  EXPECT_THROW(featurize_hlo_module(module, FeatureSet::Standard, "t"), Error);
  EXPECT_THROW(featurize_hlo_module(pb::HloModuleProto(), FeatureSet::Standard, "t"), Error);
}

TEST(HloFeaturizer, HugeValuesWrapInsteadOfOverflowing) {
  // A crafted record: dimensions whose int64 sum and product overflow. They wrap as the
  // reference's int64 arithmetic does (and, in C++, without signed overflow: the sanitizer
  // build fails this test on the old code).
  pb::HloModuleProto module;
  auto* computation = module.add_computations();
  computation->set_root_id(0);
  auto* parameter = add_instruction(computation, 0, "parameter");
  for (const int64_t d : {INT64_MAX, int64_t{1}, int64_t{2}}) {
    parameter->mutable_shape()->add_dimensions(d);
  }
  const FeaturizedModule featurized = featurize_hlo_module(module, FeatureSet::Standard, "t");
  const float* row = featurized.graph.node_features.data();
  // Columns 21..26 hold the first six dimensions, 27 their sum, 28 their product.
  // INT64_MAX + 1 + 2 wraps to INT64_MIN + 2; INT64_MAX * 2 wraps to -2.
  EXPECT_EQ(row[27], static_cast<float>(INT64_MIN + 2));
  EXPECT_EQ(row[28], -2.0f);
  EXPECT_EQ(wrapping_sum(std::vector<int64_t>{INT64_MIN, -1}), INT64_MAX);
  EXPECT_EQ(wrapping_product(std::vector<int64_t>{INT64_MIN, -1}), INT64_MIN);
  EXPECT_EQ(wrapping_product(std::vector<int64_t>{}), 1);
}

TEST(HloFeaturizer, UnknownOpcodesAreCountedAndNamed) {
  // two_computation_module has one instruction with an opcode the table does not know.
  const FeaturizedModule featurized =
      featurize_hlo_module(two_computation_module(), FeatureSet::Standard, "t");
  EXPECT_EQ(featurized.unknown_opcodes, 1);
  EXPECT_EQ(featurized.first_unknown_opcode, "not-an-opcode");
  EXPECT_EQ(featurized.first_unknown_instruction, "not-an-opcode.11");
  EXPECT_EQ(featurized.graph.opcodes[4], 0);
}

TEST(HloFeaturizer, FeatureSetNames) {
  EXPECT_EQ(parse_feature_set("standard"), FeatureSet::Standard);
  EXPECT_EQ(parse_feature_set("extended"), FeatureSet::Extended);
  EXPECT_EQ(feature_set_name(FeatureSet::Extended), "extended");
  try {
    parse_feature_set("fancy");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("standard, extended"), std::string::npos);
  }
}

}  // namespace
}  // namespace graphcost::io
