// The scoring options' table (infer/scoring_options.h): defaults, checks and JSON keys.
#include "infer/scoring_options.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace graphcost::infer {
namespace {

std::string check_error(const ScoringOptions& options) {
  try {
    check_scoring_options(options, "score");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ScoringOptions, JsonKeysAndDefaultsComeFromTheTable) {
  nlohmann::json j;
  write_option_fields(j, scoring_option_fields(), ScoringOptions{});
  EXPECT_EQ(j, nlohmann::json::parse(R"({"ensemble": "mean", "mc_samples": 0, "seed": 0,
                                         "slate_size": 256, "tta": 0, "anchors": -1})"));
  ScoringOptions read;
  read_option_fields(scoring_option_fields(), nlohmann::json::parse(R"({"tta": 3, "seed": 7})"),
                     read, "score");
  EXPECT_EQ(read.tta, 3);
  EXPECT_EQ(read.seed, 7u);
  EXPECT_EQ(read.slate_size, 256);
}

// Options read from JSON over the defaults, as a user's values reach them.
ScoringOptions with(const char* json) {
  ScoringOptions options;
  read_option_fields(scoring_option_fields(), nlohmann::json::parse(json), options, "score");
  return options;
}

TEST(ScoringOptions, EveryCheckNamesItsKey) {
  const std::pair<const char*, const char*> cases[] = {
      {"{}", ""},
      {R"({"ensemble": "rank", "anchors": 0})", ""},
      {R"({"anchors": 1099511627776})", ""},
      {R"({"ensemble": "median"})",
       "score: ensemble: unknown value \"median\" (valid: mean, rank)"},
      {R"({"mc_samples": -1})", "score: mc_samples: must be at least 0"},
      {R"({"slate_size": 0})", "score: slate_size: must be at least 1"},
      {R"({"tta": -2})", "score: tta: must be at least 0"},
      {R"({"anchors": -2})",
       "score: anchors: must be in [0, 1099511627776], or -1 for the run's training slate size - "
       "1"},
      {R"({"anchors": 1099511627777})",
       "score: anchors: must be in [0, 1099511627776], or -1 for the run's training slate size - "
       "1"},
  };
  for (const auto& [json, error] : cases) EXPECT_EQ(check_error(with(json)), error) << json;
}

TEST(ScoringOptions, DataOptionsOfScoringCommandsTakeTheRunsPruning) {
  const data::DataOptions options = run_scoring_data_options("test");
  EXPECT_EQ(options.split, "test");
  EXPECT_EQ(options.collection, "");
  EXPECT_EQ(options.prune_hops, kRunPruning);
  EXPECT_EQ(options.prune_seeds, "all");
  EXPECT_EQ(options.data, "");
}

}  // namespace
}  // namespace graphcost::infer
