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

TEST(TrainingGraphs, SharedGraphsInTheFittedOrder) {
  EXPECT_TRUE(shared_graphs({"a", "b"}, {"c", "d"}).empty());
  EXPECT_EQ(shared_graphs({"d", "a", "b"}, {"c", "d", "a"}), (std::vector<std::string>{"d", "a"}));
}

TEST(TrainingGraphs, AConfigurationAMemberTrainedOnIsRefused) {
  // Three tile configurations of width 2 fitted on; the member trained on two others of the same
  // graph, then on one of the three.
  data::ConfigTable fitted;
  fitted.count = 3;
  fitted.width = 2;
  fitted.tile = {1, 2, 3, 4, 5, 6};
  const data::ConfigView view = fitted.view();
  auto bytes = [](std::vector<float> row) {
    return std::string(reinterpret_cast<const char*>(row.data()), row.size() * sizeof(float));
  };
  EXPECT_NO_THROW(check_out_of_sample("runs/xgb", "g", {bytes({1, 3}), bytes({2, 1})}, view));
  try {
    check_out_of_sample("runs/xgb", "g", {bytes({1, 3}), bytes({3, 4})}, view);
    FAIL() << "a configuration the member trained on was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "runs/xgb: trained on graph g, which the stack is fitted on (1 of its 3 configurations "
        "there are among the member's training ones: its scores there are in-sample); fit the "
        "stack on graphs or configurations no member trained on (e.g. --split valid)");
  }
}

}  // namespace
}  // namespace graphcost::stack
