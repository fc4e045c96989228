// What a member's config.json says it trained on, and the refusal of in-sample stacking.
#include "stack/training_graphs.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace graphcost::stack {
namespace {

TEST(TrainingGraphs, SourceFromConfig) {
  run::RunConfig config;
  config.data.data = "/d";
  config.data.collection = "tile:xla";
  config.data.split = "valid";
  config.data.exclude = {"a"};
  config.data.skip_invalid = true;
  EXPECT_FALSE(training_source(config).has_value());  // no "data" in the file: nothing to list
  config.options = {{"data", "/d"}};
  const auto source = training_source(config);
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->data, "/d");
  EXPECT_EQ(source->collection, "tile:xla");
  EXPECT_EQ(source->split, "valid");
  EXPECT_EQ(source->exclude, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(source->skip_invalid);
  // A run that named no collection (before config.json recorded one): the data options' default.
  config.data.collection = "";
  EXPECT_EQ(training_source(config)->collection, data::DataOptions{}.collection);
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
