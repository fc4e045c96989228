#include "core/error.h"

#include <gtest/gtest.h>

namespace graphcost {
namespace {

TEST(Error, NamesWhereKeyAndProblem) {
  Error e("data/a.npz", "node_feat", "expected 2 dimensions, got 1");
  EXPECT_STREQ(e.what(), "data/a.npz: node_feat: expected 2 dimensions, got 1");
  EXPECT_EQ(e.where(), "data/a.npz");
  EXPECT_EQ(e.key(), "node_feat");
}

TEST(Error, OmitsEmptyKey) {
  Error e("run/config.json", "", "not valid JSON");
  EXPECT_STREQ(e.what(), "run/config.json: not valid JSON");
}

TEST(Error, CheckDataThrowsOnlyOnFalse) {
  EXPECT_NO_THROW(check_data(true, "f", "k", "p"));
  EXPECT_THROW(check_data(false, "f", "k", "p"), Error);
}

}  // namespace
}  // namespace graphcost
