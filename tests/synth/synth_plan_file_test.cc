#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "synth/plan_file.h"

namespace graphcost::synth {
namespace {

nlohmann::json layout_entry() {
  return nlohmann::json::parse(R"({"collection": "layout:xla:random", "files": [4, 1, 0],
      "nodes": [6000, 6500], "configs": [100, 200], "configurable_fraction": [0.1, 0.1]})");
}

TEST(SynthPlanFile, ReadsEveryField) {
  nlohmann::json j = nlohmann::json::array({layout_entry()});
  j[0]["max_layout_cells"] = 12345;
  const auto plans = collection_plans_from_json(j, "plan.json");
  ASSERT_EQ(plans.size(), 1u);
  const CollectionPlan& p = plans[0];
  EXPECT_EQ(p.id.str(), "layout:xla:random");
  EXPECT_EQ(p.files[0], 4);
  EXPECT_EQ(p.files[1], 1);
  EXPECT_EQ(p.files[2], 0);
  EXPECT_EQ(p.min_nodes, 6000);
  EXPECT_EQ(p.max_nodes, 6500);
  EXPECT_EQ(p.min_configs, 100);
  EXPECT_EQ(p.max_configs, 200);
  EXPECT_DOUBLE_EQ(p.min_fraction, 0.1);
  EXPECT_DOUBLE_EQ(p.max_fraction, 0.1);
  EXPECT_EQ(p.max_layout_cells, 12345);
}

TEST(SynthPlanFile, ReadsTheRandomSearch) {
  nlohmann::json j = nlohmann::json::array({layout_entry()});
  EXPECT_FALSE(collection_plans_from_json(j, "plan.json")[0].tied_random_search);
  j[0]["random_search"] = "tied";
  EXPECT_TRUE(collection_plans_from_json(j, "plan.json")[0].tied_random_search);
  j[0]["random_search"] = "independent";
  EXPECT_FALSE(collection_plans_from_json(j, "plan.json")[0].tied_random_search);
}

TEST(SynthPlanFile, PlannedFilesFollowThePlan) {
  const auto plans = collection_plans_from_json(nlohmann::json::array({layout_entry()}), "p");
  const auto files = plan_files(plans, 3);
  ASSERT_EQ(files.size(), 5u);
  for (const PlannedFile& f : files) {
    EXPECT_GE(f.nodes, 6000);
    EXPECT_LE(f.nodes, 6500);
    EXPECT_DOUBLE_EQ(f.fraction, 0.1);
  }
}

TEST(SynthPlanFile, BadPlansNameTheKey) {
  auto expect_error = [](const nlohmann::json& j, const std::string& fragment) {
    try {
      collection_plans_from_json(j, "plan.json");
      ADD_FAILURE() << "no error for " << j.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error(nlohmann::json::array(), "non-empty array");
  nlohmann::json j = nlohmann::json::array({layout_entry()});
  j[0]["colour"] = 1;
  expect_error(j, "colour");
  j = nlohmann::json::array({layout_entry()});
  j[0].erase("nodes");
  expect_error(j, "nodes");
  j = nlohmann::json::array({layout_entry()});
  j[0]["nodes"] = {7000, 6000};
  expect_error(j, "min is above max");
  j = nlohmann::json::array({layout_entry()});
  j[0]["configurable_fraction"] = {0.0, 0.1};
  expect_error(j, "configurable_fraction");
  j = nlohmann::json::array({layout_entry()});
  j[0]["files"] = "many";
  expect_error(j, "files");
  j = nlohmann::json::array({layout_entry()});
  j[0]["configs"] = {"a", "b"};
  expect_error(j, "wrong type");
  j = nlohmann::json::array({layout_entry(), layout_entry()});
  expect_error(j, "listed twice");
  j = nlohmann::json::array({layout_entry()});
  j[0]["collection"] = "layout:xla:sideways";
  expect_error(j, "layout:xla:sideways");
  j = nlohmann::json::array({layout_entry()});
  j[0]["random_search"] = "greedy";
  expect_error(j, "plan.json (layout:xla:random): random_search: unknown search \"greedy\"");
  j = nlohmann::json::array({layout_entry()});
  j[0]["collection"] = "layout:xla:default";
  j[0]["random_search"] = "tied";
  expect_error(j, "random_search: only a layout random collection has one");
  // Caught when the plan is read, not by the generator after the folders were made.
  j = nlohmann::json::array({layout_entry()});
  j[0]["nodes"] = {50, 50};
  expect_error(j, "plan.json (layout:xla:random): nodes: a layout program needs at least 128 nodes");
}

}  // namespace
}  // namespace graphcost::synth
