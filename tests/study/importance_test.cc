// PED-ANOVA importances: a hand-computed categorical case, and the parameter that matters first.
#include "study/importance.h"

#include <gtest/gtest.h>

#include "core/random.h"

namespace graphcost::study {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

TrialRecord complete(int64_t number, json params, double value) {
  TrialRecord t;
  t.number = number;
  t.state = TrialState::Complete;
  t.params = std::move(params);
  t.value = value;
  return t;
}

TEST(StudyImportance, HandComputedCategoricalDivergence) {
  const SearchSpace space =
      parse_space(ordered_json::parse(R"({"c": {"type": "categorical", "choices": ["a", "b"]}})"),
                  "s", nullptr);
  // 20 trials alternating a, b; every a better than every b. The top 10% are two a's.
  std::vector<TrialRecord> trials;
  for (int i = 0; i < 20; ++i)
    trials.push_back(complete(i, {{"c", i % 2 ? "b" : "a"}}, (i % 2) * 10 + i * 0.01));
  // Parzen with prior weight 1 over K = 2: an observation of a puts (1/2 + 1) / 2 on a; the prior
  // 1/2. Top: p(a) = (2 * 3/4 + 1/2) / 3 = 2/3. All: p(a) = (10 * 3/4 + 10 * 1/4 + 1/2) / 21
  // = 1/2. Divergence: 1/2 (4/3 - 1)^2 + 1/2 (2/3 - 1)^2 = 1/9.
  const auto raw = parameter_importance(space, trials, false, {0.1, false});
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_NEAR(raw[0].second, 1.0 / 9.0, 1e-12);
  // Maximising, the top two are b's: the same divergence by symmetry.
  EXPECT_NEAR(parameter_importance(space, trials, true, {0.1, false})[0].second, 1.0 / 9.0, 1e-12);
  EXPECT_NEAR(parameter_importance(space, trials, false)[0].second, 1.0, 1e-12);  // normalised
}

TEST(StudyImportance, TheParameterThatDecidesTheValueComesFirst) {
  const SearchSpace space = parse_space(ordered_json::parse(R"({
      "noise": {"type": "float", "low": 0, "high": 1},
      "x": {"type": "float", "low": -5, "high": 5},
      "n": {"type": "int", "low": 1, "high": 8}})"),
                                        "s", nullptr);
  graphcost::Random random(3);
  std::vector<TrialRecord> trials;
  for (int i = 0; i < 200; ++i) {
    const double x = -5 + 10 * random.uniform();
    const json params = {
        {"noise", random.uniform()}, {"x", x}, {"n", int64_t(1 + random.below(8))}};
    trials.push_back(complete(i, params, (x - 2) * (x - 2)));
  }
  const auto importance = parameter_importance(space, trials, false);
  ASSERT_EQ(importance.size(), 3u);
  EXPECT_EQ(importance[0].first, "x");
  EXPECT_GT(importance[0].second, 0.8);
  double sum = 0;
  for (const auto& [key, value] : importance) sum += value;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(StudyImportance, TooFewTrialsGiveZeros) {
  const SearchSpace space = parse_space(
      ordered_json::parse(R"({"x": {"type": "float", "low": 0, "high": 1}})"), "s", nullptr);
  EXPECT_EQ(parameter_importance(space, {complete(0, {{"x", 0.5}}, 1.0)}, false),
            (std::vector<std::pair<std::string, double>>{{"x", 0.0}}));
  EXPECT_EQ(parameter_importance(space, {}, false),
            (std::vector<std::pair<std::string, double>>{{"x", 0.0}}));
}

}  // namespace
}  // namespace graphcost::study
