// TPE: the Parzen estimator's densities against hand computations, the sampler's range and
// determinism, and that it beats random search on a known function.
#include "study/tpe.h"

#include <gtest/gtest.h>

#include <cmath>

#include "study/parzen.h"

namespace graphcost::study {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

SearchSpace space_of(const std::string& text) {
  return parse_space(ordered_json::parse(text), "space.json", nullptr);
}

double truncated_normal_pdf(double x, double mu, double sigma, double low, double high) {
  auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  const double z = (x - mu) / sigma;
  return std::exp(-0.5 * z * z) / (sigma * std::sqrt(2 * M_PI)) /
         (cdf((high - mu) / sigma) - cdf((low - mu) / sigma));
}

TEST(TpeParzen, OneObservationMatchesTheHandComputedMixture) {
  const SearchSpace space = space_of(R"({"x": {"type": "float", "low": 0, "high": 1}})");
  const ParzenEstimator estimator({&space.parameters[0]}, {{0.25}}, 1.0);
  // Centres 0.25 and the prior's 0.5: the observation's bandwidth is its gap 0.25, clipped up to
  // range / min(100, 1 + 1) = 0.5; the prior's is the range, 1. Weights 1/2 each.
  for (double x : {0.0, 0.1, 0.25, 0.7, 1.0}) {
    const double expected = 0.5 * truncated_normal_pdf(x, 0.25, 0.5, 0, 1) +
                            0.5 * truncated_normal_pdf(x, 0.5, 1.0, 0, 1);
    EXPECT_NEAR(std::exp(estimator.log_density({x})), expected, 1e-12) << x;
  }
}

TEST(TpeParzen, DensitiesSumToOne) {
  const SearchSpace space = space_of(R"({
    "f": {"type": "float", "low": 1e-3, "high": 1, "log": true},
    "i": {"type": "int", "low": 1, "high": 6},
    "c": {"type": "categorical", "choices": ["a", "b", "c"]}})");
  // The int and the categorical jointly: a probability mass over 6 x 3 points.
  const ParzenEstimator discrete({&space.parameters[1], &space.parameters[2]},
                                 {{2, 0}, {6, 2}, {3, 0}}, 1.0);
  double mass = 0;
  for (int i = 1; i <= 6; ++i)
    for (int c = 0; c < 3; ++c) mass += std::exp(discrete.log_density({double(i), double(c)}));
  EXPECT_NEAR(mass, 1.0, 1e-12);
  // The log float: a density over log(x); midpoint rule on 20000 cells.
  const ParzenEstimator continuous({&space.parameters[0]}, {{std::log(0.01)}, {std::log(0.5)}},
                                   1.0);
  const double low = std::log(1e-3), high = 0;
  const int cells = 20000;
  double integral = 0;
  for (int k = 0; k < cells; ++k)
    integral += std::exp(continuous.log_density({low + (high - low) * (k + 0.5) / cells}));
  EXPECT_NEAR(integral * (high - low) / cells, 1.0, 1e-6);
}

TEST(TpeSampler, GoodCountIsTenPercentCappedAt25) {
  EXPECT_EQ(tpe_good_count(1), 1);
  EXPECT_EQ(tpe_good_count(10), 1);
  EXPECT_EQ(tpe_good_count(11), 2);
  EXPECT_EQ(tpe_good_count(249), 25);
  EXPECT_EQ(tpe_good_count(1000), 25);
}

// A 3-d quadratic (two floats, one int) plus an offset per choice of a categorical parameter:
// minimum 0 at x = 1, y = -2, z = 3, c = "b" (offsets a 6, b 0, c 3, d 9).
const char* kQuadraticSpace = R"({
  "x": {"type": "float", "low": -10, "high": 10},
  "y": {"type": "float", "low": -10, "high": 10},
  "z": {"type": "int", "low": -10, "high": 10},
  "c": {"type": "categorical", "choices": ["a", "b", "c", "d"]}})";

double quadratic(const json& p) {
  const double x = p["x"].get<double>(), y = p["y"].get<double>();
  const double z = static_cast<double>(p["z"].get<int64_t>());
  const std::string c = p["c"].get<std::string>();
  const double offset = c == "a" ? 6 : c == "b" ? 0 : c == "c" ? 3 : 9;
  return (x - 1) * (x - 1) + (y + 2) * (y + 2) + (z - 3) * (z - 3) + offset;
}

// The best value after `trials` trials of a sampler on the quadratic (minimised).
double best_after(Sampler& sampler, const SearchSpace& space, int trials,
                  std::vector<TrialRecord>* history_out = nullptr) {
  std::vector<TrialRecord> history;
  double best = INFINITY;
  for (int t = 0; t < trials; ++t) {
    TrialRecord trial;
    trial.number = t;
    trial.params = sampler.sample(space, history, t, false);
    trial.state = TrialState::Complete;
    trial.value = quadratic(trial.params);
    best = std::min(best, *trial.value);
    history.push_back(trial);
  }
  if (history_out) *history_out = history;
  return best;
}

TEST(TpeSampler, StaysInRangeAndIsDeterministic) {
  const SearchSpace space = space_of(R"({
    "lr": {"type": "float", "low": 1e-4, "high": 1e-2, "log": true},
    "width": {"type": "int", "low": 8, "high": 512, "log": true},
    "dropout": {"type": "float", "low": 0, "high": 0.5, "step": 0.1},
    "loss": {"type": "categorical", "choices": ["listmle", "hinge"]},
    "margin": {"type": "int", "low": 1, "high": 5, "condition": {"loss": ["hinge"]}}})");
  for (const char* name : {"tpe", "tpe:independent"}) {
    auto a = make_sampler(name, 3, {{"startup_trials", 5}});
    auto b = make_sampler(name, 3, {{"startup_trials", 5}});
    std::vector<TrialRecord> history;
    for (int64_t t = 0; t < 40; ++t) {
      const json x = a->sample(space, history, t, true);
      EXPECT_EQ(x, b->sample(space, history, t, true)) << name << " trial " << t;
      const auto active = active_parameters(space, x);
      ASSERT_EQ(x.size(), active.size()) << x.dump();
      for (const Parameter* p : active)
        EXPECT_TRUE(in_domain(*p, x[p->key])) << name << ": " << p->key << " = " << x[p->key];
      TrialRecord trial;
      trial.number = t;
      trial.params = x;
      // Alternate states so ranking sees complete, pruned and failed trials.
      trial.state = t % 5 == 3   ? TrialState::Pruned
                    : t % 7 == 6 ? TrialState::Failed
                                 : TrialState::Complete;
      const double score = -std::abs(std::log10(x["lr"].get<double>()) + 3);
      if (trial.state == TrialState::Complete) trial.value = score;
      if (trial.state == TrialState::Pruned) trial.intermediate = {{1, score}, {2, score - 1}};
      history.push_back(trial);
    }
  }
}

TEST(TpeSampler, BeatsRandomSearchOnAQuadraticWithACategoricalParameter) {
  // Over 40 seeds, the best value after 60 trials (10 random start-up trials): TPE below random
  // search on at least 30. If the two were equally good (each seed a fair coin), passing would
  // have probability P(Binomial(40, 1/2) >= 30) = 1221246132 / 2^40 = 0.11%. Measured when
  // written: multivariate 38 of 40 (mean best 3.4 against random's 11.6), independent 33.
  const SearchSpace space = space_of(kQuadraticSpace);
  for (const char* name : {"tpe", "tpe:independent"}) {
    int wins = 0;
    for (uint64_t seed = 0; seed < 40; ++seed) {
      auto tpe = make_sampler(name, seed, json::object());
      auto random = make_sampler("random", seed + 1000, json::object());
      wins += best_after(*tpe, space, 60) < best_after(*random, space, 60);
    }
    EXPECT_GE(wins, 30) << name;
  }
}

TEST(TpeSampler, FirstTrialsAreTheRandomSamplersOnesWithTheSameSeed) {
  const SearchSpace space = space_of(kQuadraticSpace);
  auto tpe = make_sampler("tpe", 5, json::object());
  auto random = make_sampler("random", 5, json::object());
  std::vector<TrialRecord> history;
  best_after(*random, space, 10, &history);
  for (int64_t t = 0; t < 10; ++t) {
    const std::vector<TrialRecord> before(history.begin(), history.begin() + t);
    EXPECT_EQ(tpe->sample(space, before, t, false), history[static_cast<size_t>(t)].params);
  }
  // From the 11th on, TPE's own draw.
  EXPECT_NE(tpe->sample(space, history, 10, false), random->sample(space, history, 10, false));
}

}  // namespace
}  // namespace graphcost::study
