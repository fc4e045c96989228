// Reading final validation metrics and tabulating a sweep.
#include "sweep/results.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace graphcost::sweep {
namespace {

using nlohmann::json;

TEST(SweepResults, FinalValidationIsTheLastLineWithMetrics) {
  const std::string text =
      "{\"iteration\":5,\"loss\":1.0,\"kendall_tau\":0.1,\"opa\":0.5}\n"
      "{\"iteration\":10,\"loss\":0.9,\"kendall_tau\":0.3,\"opa\":0.6,\"valid_graphs\":2}\n"
      "{\"iteration\":15,\"loss\":0.8}\n"
      "{\"iteration\":20,\"kendall";  // cut by a crash
  EXPECT_EQ(final_validation(text), json::parse(R"({"kendall_tau":0.3,"opa":0.6})"));
  EXPECT_EQ(final_validation("{\"loss\":1}\n"), json::object());
}

TEST(SweepResults, StatisticsUseTheSampleStandardDeviation) {
  const Stat s = statistics({1.0, 2.0, 3.0, 6.0});
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(14.0 / 3.0));
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(statistics({5.0}).std, 0.0);
  EXPECT_EQ(statistics({}).count, 0);
}

TEST(SweepResults, SummaryGroupsByCombination) {
  std::vector<Combination> combinations(2);
  combinations[0].id = "c000";
  combinations[0].name = "loss=listmle";
  combinations[1].id = "c001";
  combinations[1].name = "loss=hinge, \"quoted\"";
  std::vector<RunResult> results(5);
  results[0] = {"c000", 0, true, false, 10, json{{"kendall_tau", 0.2}, {"opa", 0.6}}};
  results[1] = {"c000", 1, true, false, 20, json{{"kendall_tau", 0.4}, {"opa", 0.7}}};
  results[2] = {"c001", 0, true, false, 30, json{{"kendall_tau", 0.5}, {"opa", 0.8}}};
  results[3] = {"c001", 1, false, true, 1, json::object()};
  results[4] = {"c001", 2, false, false, 0, json::object()};
  const Summary s = summarise(combinations, results);
  ASSERT_EQ(s.metric_names, (std::vector<std::string>{"kendall_tau", "opa"}));
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0].done, 2);
  EXPECT_DOUBLE_EQ(s.rows[0].metrics[0].mean, 0.3);
  EXPECT_NEAR(s.rows[0].metrics[0].std, std::sqrt(0.02), 1e-15);
  EXPECT_DOUBLE_EQ(s.rows[0].seconds.mean, 15.0);
  EXPECT_EQ(s.rows[1].done, 1);
  EXPECT_EQ(s.rows[1].failed, 1);
  EXPECT_EQ(s.rows[1].pending, 1);
  EXPECT_DOUBLE_EQ(s.rows[1].metrics[1].mean, 0.8);

  EXPECT_EQ(to_csv(s),
            "id,combination,done,failed,pending,kendall_tau_mean,kendall_tau_std,opa_mean,opa_std,"
            "train_seconds_mean\n"
            "c000,loss=listmle,2,0,0,0.3,0.141421,0.65,0.0707107,15.000\n"
            "c001,\"loss=hinge, \"\"quoted\"\"\",1,1,1,0.5,0,0.8,0,30.000\n");
  EXPECT_EQ(to_markdown(s),
            "| id | combination | runs | kendall_tau | opa | train s |\n"
            "|---|---|---|---|---|---|\n"
            "| c000 | loss=listmle | 2 | 0.3000 ± 0.1414 | 0.6500 ± 0.0707 | 15.0 |\n"
            "| c001 | loss=hinge, \"quoted\" | 1 (1 failed) (1 pending) | 0.5000 | 0.8000 | 30.0 |\n");
  const std::string html = to_html(s, "a <b>");
  EXPECT_NE(html.find("a &lt;b&gt;"), std::string::npos);
  EXPECT_NE(html.find("&quot;quoted&quot;"), std::string::npos);
}

TEST(SweepResults, PairedDifferenceAgainstABaselineRow) {
  // Baseline c000 and variant c001 over seeds 0..4; the variant's seed 4 failed, and c002 has
  // one seed. Differences by seed (c001 - c000): 0.01, 0.03, 0.02, 0.04 over seeds 0..3: mean
  // 0.025, sample sd sqrt(0.0005 / 3) = 0.0129099, standard error 0.00645497, t(0.975, 3) =
  // 3.182446, half width 0.0205426: [0.0044574, 0.0455426].
  std::vector<Combination> combinations(3);
  combinations[0].id = "c000";
  combinations[0].name = "attention=false";
  combinations[1].id = "c001";
  combinations[1].name = "attention=true";
  combinations[2].id = "c002";
  combinations[2].name = "other";
  const std::vector<double> base = {0.30, 0.20, 0.25, 0.40, 0.35};
  const std::vector<double> diff = {0.01, 0.03, 0.02, 0.04};
  std::vector<RunResult> results;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    results.push_back({"c000", seed, true, false, 1, json{{"kendall_tau", base[seed]}}});
    if (seed < 4) {
      results.push_back(
          {"c001", seed, true, false, 1, json{{"kendall_tau", base[seed] + diff[seed]}}});
    } else {
      results.push_back({"c001", seed, false, true, 1, json::object()});
    }
  }
  results.push_back({"c002", 2, true, false, 1, json{{"kendall_tau", 0.26}}});
  const Summary s = summarise(combinations, results, "attention=false");  // by name
  EXPECT_EQ(s.baseline, "c000");
  EXPECT_TRUE(s.rows[0].paired.empty());
  ASSERT_EQ(s.rows[1].paired.size(), 1u);
  const eval::PairedComparison& p = s.rows[1].paired[0];
  EXPECT_EQ(p.units, 4);
  EXPECT_NEAR(p.mean_difference, 0.025, 1e-12);
  EXPECT_NEAR(p.interval_low, 0.0044574, 1e-6);
  EXPECT_NEAR(p.interval_high, 0.0455426, 1e-6);
  EXPECT_EQ(s.rows[2].paired[0].units, 1);
  EXPECT_NEAR(s.rows[2].paired[0].mean_difference, 0.01, 1e-12);
  const std::string markdown = to_markdown(s);
  EXPECT_NE(markdown.find("| Δ kendall_tau |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| +0.0250 [+0.0045, +0.0455]* |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| +0.0100 (1 seed) |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| baseline |"), std::string::npos) << markdown;
  const std::string csv = to_csv(s);
  EXPECT_NE(csv.find("kendall_tau_diff,kendall_tau_diff_low,kendall_tau_diff_high,kendall_tau_pairs"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",0.025,0.0044574,0.0455426,4,"), std::string::npos) << csv;
  EXPECT_THROW(summarise(combinations, results, "c009"), Error);
}

}  // namespace
}  // namespace graphcost::sweep
