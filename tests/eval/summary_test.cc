#include "eval/summary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace graphcost::eval {
namespace {

std::vector<GraphScores> layout_graphs() {
  return {
      {"perfect", {1, 2, 3}, {10, 20, 30}},   // tau 1, opa 1
      {"reversed", {3, 2, 1}, {10, 20, 30}},  // tau -1, opa 0
      {"single", {1}, {10}},                  // undefined
      {"flat", {1, 2, 3}, {5, 5, 5}},         // undefined
      {"half", {1, 1, 2}, {1, 2, 3}},         // tau 2/sqrt(6), opa 2/3
  };
}

TEST(Summary, LayoutMeansSkipNaN) {
  MetricTable table = evaluate(data::ConfigKind::Layout, layout_graphs());
  ASSERT_EQ(table.metric_names,
            (std::vector<std::string>{"kendall_tau", "opa", "top1_error", "top10_error"}));
  // "reversed" ranks its slowest configuration (30) first: top-1 error 30/10 - 1 = 2; all three
  // are within its top 10.
  EXPECT_DOUBLE_EQ(table.rows[1][2], 2.0);
  EXPECT_DOUBLE_EQ(table.rows[1][3], 0.0);
  ASSERT_EQ(table.rows.size(), 5u);
  EXPECT_EQ(table.graph_names[2], "single");
  EXPECT_TRUE(std::isnan(table.rows[2][0]));
  EXPECT_TRUE(std::isnan(table.rows[3][0]));
  EXPECT_TRUE(std::isnan(table.rows[3][1]));
  EXPECT_DOUBLE_EQ(table.rows[4][0], 2.0 / std::sqrt(6.0));
  EXPECT_DOUBLE_EQ(table.means[0], (1.0 - 1.0 + 2.0 / std::sqrt(6.0)) / 3.0);
  EXPECT_DOUBLE_EQ(table.means[1], (1.0 + 0.0 + 2.0 / 3.0) / 3.0);
  // Tau and OPA are defined on perfect, reversed and half; the top-K errors on every graph but
  // single (a graph of one configuration has no ranking metric).
  EXPECT_EQ(table.counts, (std::vector<int64_t>{3, 3, 4, 4}));
}

TEST(Summary, TileMetrics) {
  MetricTable table =
      evaluate(data::ConfigKind::Tile, {{"k", {0, 1, 2, 3, 4, 5}, {4, 3, 5, 6, 7, 2}}});
  ASSERT_EQ(table.metric_names,
            (std::vector<std::string>{"top1_error", "top5_error", "top10_error", "tile_score",
                                      "kendall_tau"}));
  EXPECT_DOUBLE_EQ(table.rows[0][0], 1.0);
  EXPECT_DOUBLE_EQ(table.rows[0][1], 0.5);
  EXPECT_DOUBLE_EQ(table.rows[0][2], 0.0);
  EXPECT_DOUBLE_EQ(table.rows[0][3], 0.5);
  EXPECT_DOUBLE_EQ(table.means[3], 0.5);
  EXPECT_DOUBLE_EQ(table.rows[0][4], 3.0 / 15.0);  // 9 concordant, 6 discordant pairs
}

TEST(Summary, AllNaNColumnHasNaNMean) {
  MetricTable table = evaluate(data::ConfigKind::Layout, {{"one", {1}, {1}}});
  EXPECT_TRUE(std::isnan(table.means[0]));
  EXPECT_EQ(table.counts[0], 0);
  nlohmann::json json = to_json(table);
  EXPECT_TRUE(json["kendall_tau"].is_null());
}

TEST(Summary, JsonHasRowsAndMeans) {
  nlohmann::json json = to_json(evaluate(data::ConfigKind::Layout, layout_graphs()));
  ASSERT_EQ(json["graphs"].size(), 5u);
  EXPECT_EQ(json["graphs"][0]["name"], "perfect");
  EXPECT_DOUBLE_EQ(json["graphs"][1]["kendall_tau"].get<double>(), -1.0);
  EXPECT_TRUE(json["graphs"][2]["kendall_tau"].is_null());
  EXPECT_TRUE(json["graphs"][2]["opa"].is_null());
  EXPECT_EQ(json["graph_count"], 5);
  EXPECT_NEAR(json["opa"].get<double>(), 5.0 / 9.0, 1e-15);
  EXPECT_TRUE(json["kendall_tau"].is_number());
}

TEST(Summary, TextTableAlignsAndPrintsNaN) {
  MetricTable table =
      evaluate(data::ConfigKind::Layout, {{"a", {1, 2}, {1, 2}}, {"longer_name", {1}, {1}}});
  EXPECT_EQ(format_table(table),
            "graph        kendall_tau     opa  top1_error  top10_error\n"
            "a                 1.0000  1.0000      0.0000       0.0000\n"
            "longer_name          nan     nan         nan          nan\n"
            "---------------------------------------------------------\n"
            "mean              1.0000  1.0000      0.0000       0.0000\n");
}

TEST(Summary, SizeMismatchNamesTheGraph) {
  try {
    evaluate(data::ConfigKind::Layout, {{"g7", {1, 2}, {1}}});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("g7"), std::string::npos) << e.what();
  }
}

TEST(Summary, TiedScoresOverOnePercentOfPairsAreNamed) {
  // Two levels for four configurations: 2 of the 6 pairs are tied.
  EXPECT_EQ(tied_scores_warning({"two_levels", {0, 0, 1, 1}, {1, 2, 3, 4}}),
            "two_levels: 33.3% of configuration pairs have equal predicted scores; Kendall tau-b "
            "leaves them out, which flatters these scores (a submission ranks strictly: predict "
            "then score breaks the ties)");
  // One tied pair among 45 (2.2%) is named; among 190 (0.5%) it is not.
  std::vector<double> ten(10), twenty(20), measured_ten(10), measured_twenty(20);
  for (int i = 0; i < 20; ++i) {
    if (i < 10) ten[i] = measured_ten[i] = i;
    twenty[i] = measured_twenty[i] = i;
  }
  ten[1] = twenty[1] = 0;  // configurations 0 and 1 tie
  EXPECT_EQ(tied_scores_warning({"ten", ten, measured_ten}).substr(0, 10), "ten: 2.2% ");
  EXPECT_EQ(tied_scores_warning({"twenty", twenty, measured_twenty}), "");
  // Distinct scores, a single configuration and mismatched sizes give no warning.
  EXPECT_EQ(tied_scores_warning({"distinct", {3, 1, 2}, {1, 1, 1}}), "");
  EXPECT_EQ(tied_scores_warning({"single", {1}, {1}}), "");
  EXPECT_EQ(tied_scores_warning({"sizes", {1, 1}, {1}}), "");
}

}  // namespace
}  // namespace graphcost::eval
