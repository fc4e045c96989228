// The noise analysis by hand: one graph's repeats, the agreement and model figures as JSON, and
// their means over graphs. (The whole report from files: tests/cli/noise_cli_test.cc.)
#include "eval/noise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/dedup.h"
#include "repeat_records.h"

namespace graphcost::eval {
namespace {

using nlohmann::json;

TEST(Noise, RepeatedGraphByHand) {
  const data::ConfigTable t = repeat_records();
  data::Graph graph;
  graph.name = "g";
  NoiseOptions options;
  options.fast = 3.1;  // both measurements below 31
  const RepeatedGraph g = repeated_graph(graph, t.view(), "g.npz", options);
  EXPECT_EQ(g.name, "g");
  EXPECT_EQ(g.source, "g.npz");
  EXPECT_EQ(g.records, 12);
  EXPECT_EQ(g.distinct, 5);
  EXPECT_EQ(g.fastest, 10.0);  // failed records do not count
  // Pairs (first, second): (10, 12), (20, 18), (30, 15), (50, 52); the first three are fast.
  EXPECT_EQ(g.pairs.first, (std::vector<double>{10, 20, 30, 50}));
  EXPECT_EQ(g.fast, (std::vector<int64_t>{0, 1, 2}));
  // The keys are the configurations of the pairs' first records (0, 1, 3, 10).
  ASSERT_EQ(g.keys.size(), 4u);
  EXPECT_EQ(g.keys[0], std::string(data::config_bytes(t.view(), 2)));  // config 0 again
  EXPECT_EQ(g.keys[3], std::string(data::config_bytes(t.view(), 11)));
  EXPECT_NE(g.keys[0], g.keys[1]);

  data::ConfigTable unmeasured = repeat_records();
  unmeasured.runtimes.clear();
  unmeasured.failed.clear();
  try {
    repeated_graph(graph, unmeasured.view(), "test.npz", options);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "test.npz: config_runtime: no measured runtimes (a test file?)");
  }
}

TEST(Noise, AgreementAndModelFiguresByHand) {
  const RepeatPairs pairs = repeat_pairs(repeat_records().view(), 1);
  // first (10, 20, 30, 50), second (12, 18, 15, 52): only pair (1, 2) is discordant.
  const json all = agreement_json(agreement(pairs));
  EXPECT_EQ(all["count"], 4);
  EXPECT_DOUBLE_EQ(all["repeat_tau"].get<double>(), 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(all["bound"].get<double>(), std::sqrt(4.0 / 6.0));
  EXPECT_DOUBLE_EQ(all["median_relative_difference"].get<double>(), (2.0 / 18.0 + 0.2) / 2);

  // A model costing the first three pairs 1, 2, 3: it orders the first measurement (10, 20, 30)
  // exactly and the second (12, 18, 15) with one of three pairs wrong.
  const json model = model_agreement_json(pairs, {1, 2, 3, 0}, {0, 1, 2});
  EXPECT_EQ(model["count"], 3);
  EXPECT_DOUBLE_EQ(model["model_tau_first"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(model["model_tau_second"].get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(model["repeat_tau"].get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(model["median_relative_difference"].get<double>(), 0.2);

  // No pairs: every figure undefined, as null.
  const json none = model_agreement_json(pairs, {1, 2, 3, 0}, {});
  EXPECT_EQ(none, json::parse(R"({"count": 0, "median_relative_difference": null,
                                 "repeat_tau": null, "bound": null, "model_tau_first": null,
                                 "model_tau_second": null})"));
}

TEST(Noise, MeansOverTheGraphsWhereDefined) {
  json graphs = json::parse(R"([
    {"all": {"repeat_tau": 0.5, "bound": 0.75}, "fast": {"repeat_tau": null, "bound": null}},
    {"all": {"repeat_tau": 0.25, "bound": null}, "fast": {"repeat_tau": 0.5, "bound": 0.5}}])");
  EXPECT_EQ(noise_means(graphs), json::parse(R"({
    "all": {"repeat_tau": {"mean": 0.375, "graphs": 2}, "bound": {"mean": 0.75, "graphs": 1}},
    "fast": {"repeat_tau": {"mean": 0.5, "graphs": 1}, "bound": {"mean": 0.5, "graphs": 1}}})"));
  // A model's figures when any graph has them; a graph without counts as undefined.
  graphs[1]["model"] = json::parse(R"({"all": {"model_tau_first": 0.5, "model_tau_second": 0.25},
                                       "fast": {"model_tau_first": null}})");
  const json means = noise_means(graphs);
  EXPECT_EQ(means["model"], json::parse(R"({
    "all": {"model_tau_first": {"mean": 0.5, "graphs": 1},
            "model_tau_second": {"mean": 0.25, "graphs": 1}},
    "fast": {"model_tau_first": {"mean": null, "graphs": 0},
             "model_tau_second": {"mean": null, "graphs": 0}}})"));
}

}  // namespace
}  // namespace graphcost::eval
