// What a member's config.json says it trained on, and the refusal of in-sample stacking.
#include "stack/training_graphs.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace graphcost::stack {
namespace {

TEST(TrainingGraphs, SourceFromConfig) {
  run::RunConfig config;
  config.collection = "tile:xla";
  config.exclude = {"a"};
  config.skip_invalid = true;
  EXPECT_FALSE(training_source(config, "m").has_value());  // no "data": nothing to list
  config.options = {{"data", "/d"}, {"split", "valid"}};
  const auto source = training_source(config, "m");
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->data, "/d");
  EXPECT_EQ(source->collection, "tile:xla");
  EXPECT_EQ(source->split, "valid");
  EXPECT_EQ(source->exclude, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(source->skip_invalid);
  config.options = {{"data", "/d"}};
  EXPECT_EQ(training_source(config, "m")->split, "train");  // the trainer's default
  config.options = {{"data", "/d"}, {"split", 3}};
  try {
    training_source(config, "m");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "m/config.json: split: expected a string");
  }
}

TEST(TrainingGraphs, AGraphAMemberTrainedOnIsRefused) {
  EXPECT_NO_THROW(check_out_of_sample("runs/xgb", {"a", "b"}, {"c", "d"}));
  try {
    check_out_of_sample("runs/xgb", {"a", "b", "d"}, {"c", "d"});
    FAIL() << "a member's in-sample graph was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "runs/xgb: trained on graph d, which the stack is fitted on (its scores there are "
              "in-sample); fit the stack on graphs no member trained on (e.g. --split valid)");
  }
}

}  // namespace
}  // namespace graphcost::stack
