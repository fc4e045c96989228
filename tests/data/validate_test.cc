#include "data/validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/error.h"
#include "test_records.h"

namespace graphcost::data {
namespace {

// Expects validation of a damaged record to fail with a message naming file and key.
void expect_invalid(const std::function<void(GraphRecord&)>& damage, const std::string& key) {
  GraphRecord r = testing::small_layout_record();
  damage(r);
  try {
    validate_record(r);
    FAIL() << "no error for damaged " << key;
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "small.npz");
    EXPECT_EQ(e.key(), key) << e.what();
  }
}

TEST(Validate, AcceptsAValidRecord) { EXPECT_NO_THROW(validate_record(testing::small_layout_record())); }

TEST(Validate, RejectsEachKindOfDamage) {
  expect_invalid([](GraphRecord& r) { r.graph.edges[1] = 4; }, "edge_index");
  expect_invalid([](GraphRecord& r) { r.graph.edges[0] = -1; }, "edge_index");
  expect_invalid([](GraphRecord& r) { r.graph.configurable_nodes = {1, 1}; }, "node_config_ids");
  expect_invalid([](GraphRecord& r) { r.graph.configurable_nodes = {1, 9}; }, "node_config_ids");
  expect_invalid([](GraphRecord& r) { r.graph.opcodes.pop_back(); }, "node_opcode");
  expect_invalid([](GraphRecord& r) { r.graph.node_features[3] = std::nanf(""); }, "node_feat");
  expect_invalid([](GraphRecord& r) { r.graph.node_splits = {0, 5}; }, "node_splits");
  expect_invalid([](GraphRecord& r) { r.graph.node_splits = {2, 1}; }, "node_splits");
  expect_invalid([](GraphRecord& r) { r.configs.runtimes[1] = 0; }, "config_runtime");
  expect_invalid([](GraphRecord& r) { r.configs.runtimes.pop_back(); }, "config_runtime");
  expect_invalid([](GraphRecord& r) { r.configs.nodes = 3; }, "node_config_feat");
  expect_invalid([](GraphRecord& r) { r.configs.layout.pop_back(); }, "node_config_feat");
  expect_invalid([](GraphRecord& r) { r.configs.failed = {0, 1}; }, "failed");
  expect_invalid([](GraphRecord& r) { r.configs.default_config = 3; }, "default_config");
}

// #40: an opcode past the table passed inspect and pack and failed later in the ranker.
TEST(Validate, OpcodesOutsideTheIdRangeAreRefusedWithTheNode) {
  GraphRecord r = testing::small_layout_record();
  r.graph.opcodes[2] = 60000;
  try {
    validate_record(r);
    FAIL() << "no error for opcode 60000";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "small.npz: node_opcode: node 2 has opcode 60000, outside [0, 256) (TpuGraphs "
              "opcode ids; unknown opcodes are 0)");
  }
  r.graph.opcodes[2] = kOpcodeIdLimit - 1;
  EXPECT_NO_THROW(validate_record(r));
  r.graph.opcodes[2] = -1;
  EXPECT_THROW(validate_record(r), Error);
}

TEST(Validate, UnknownRuntimesAreAllowed) {
  GraphRecord r = testing::small_layout_record();
  r.configs.runtimes.clear();
  EXPECT_NO_THROW(validate_record(r));
}

}  // namespace
}  // namespace graphcost::data
