// Bayesian-optimisation search (bo, the default model-guided strategy): seeded, never repeats,
// beats random search on spaces whose optimum is known, avoids what it has seen fail, and
// learns from a prior; and the pieces it is made of.
#include "tune/bayesian_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/error.h"
#include "test_space.h"
#include "tune/reach.h"
#include "tune/strategies.h"

namespace graphcost::tune {
namespace {

// A 16 x 16 x 8 grid (2,048 configurations) with one optimum: time = 1 + a smooth bowl around
// (11, 4, 6) plus a small ripple. With `failing`, every configuration with x < 5 fails (31%).
SearchSpace bowl_space(bool failing) {
  data::ConfigTable t;
  t.kind = data::ConfigKind::Tile;
  t.width = 3;
  for (int x = 0; x < 16; ++x) {
    for (int y = 0; y < 16; ++y) {
      for (int z = 0; z < 8; ++z) {
        t.tile.insert(t.tile.end(), {float(x), float(y), float(z)});
        const double bowl = 0.04 * (x - 11) * (x - 11) + 0.03 * (y - 4) * (y - 4) +
                            0.05 * (z - 6) * (z - 6) + 0.01 * ((x * 7 + y * 3 + z) % 5);
        const bool failed = failing && x < 5;
        t.runtimes.push_back(failed ? 0.0 : 1.0 + bowl);
        t.failed.push_back(failed ? 1 : 0);
        ++t.count;
      }
    }
  }
  return make_search_space("bowl", t.view());
}

std::vector<double> measured_times(const CampaignResult& r) {
  std::vector<double> out;
  for (const Measurement& m : r.measurements) out.push_back(m.failed ? -1.0 : m.time);
  return out;
}

TEST(Bayesian, SeededSearchIsReproducibleAndNeverRepeats) {
  const SearchSpace s = bowl_space(true);
  RecordedMeasurer m(s);
  auto campaign = [&](uint64_t seed) {
    BayesianStrategy bo;
    return run_campaign(s, bo, m, 60, 10, seed);
  };
  const CampaignResult a = campaign(5), b = campaign(5), c = campaign(6);
  ASSERT_EQ(a.measurements.size(), 60u);
  std::set<int64_t> seen;
  bool differs = false;
  for (size_t k = 0; k < a.measurements.size(); ++k) {
    EXPECT_EQ(a.measurements[k].config, b.measurements[k].config) << k;
    differs = differs || a.measurements[k].config != c.measurements[k].config;
    seen.insert(a.measurements[k].config);
  }
  EXPECT_EQ(seen.size(), 60u);
  EXPECT_TRUE(differs);  // another seed, another campaign
  EXPECT_EQ(measured_times(a), measured_times(b));
}

// Mean measurements to the exact optimum over seeds 0..seeds-1, a miss counted as budget + 1.
double mean_reach(const SearchSpace& s, const std::string& strategy, int64_t budget,
                  int64_t seeds, const StrategyOptions& options = {}) {
  std::vector<std::vector<double>> curves;
  RecordedMeasurer m(s);
  for (int64_t seed = 0; seed < seeds; ++seed) {
    std::unique_ptr<Strategy> st = make_strategy(strategy, options);
    curves.push_back(run_campaign(s, *st, m, budget, 10, seed).best_so_far);
  }
  return summarize_reach(curves, s.optimum(), 0.0, budget).mean_with_misses;
}

TEST(Bayesian, BeatsRandomSearchToAKnownOptimum) {
  // 16 seeds, budget 120 of 2,048: random search finds the one optimum within the budget with
  // probability 120/2048 per seed, so its mean with misses is about 117; bo must need under
  // half of that. A strategy no better than random passes with probability far below 1e-6.
  const SearchSpace s = bowl_space(false);
  const double bo = mean_reach(s, "bo", 120, 16);
  const double random = mean_reach(s, "random", 120, 16);
  RecordProperty("bo", std::to_string(bo));
  RecordProperty("random", std::to_string(random));
  EXPECT_GT(random, 100.0);
  EXPECT_LT(bo, 0.5 * random) << "bo " << bo << ", random " << random;
}

TEST(Bayesian, LearnsWhatFails) {
  // 31% of the space fails; after its first random batches bo measures far fewer failures.
  const SearchSpace s = bowl_space(true);
  RecordedMeasurer m(s);
  int64_t failed = 0, measured = 0;
  for (uint64_t seed = 0; seed < 4; ++seed) {
    BayesianStrategy bo;
    const CampaignResult r = run_campaign(s, bo, m, 100, 10, seed);
    for (size_t k = 40; k < r.measurements.size(); ++k) {
      failed += r.measurements[k].failed;
      ++measured;
    }
  }
  EXPECT_LT(static_cast<double>(failed) / measured, 0.12) << failed << " of " << measured;
}

TEST(Bayesian, APriorFromAnotherDeviceShortensTheSearch) {
  // The "other device" is the same bowl, slower overall and without the ripple: its ranking
  // transfers, so bo with the prior finds the optimum within its first batches.
  const SearchSpace target = bowl_space(false);
  SearchSpace other = target;
  for (int64_t j = 0; j < other.count; ++j) {
    const int32_t* l = other.config_levels(j);
    other.runtimes[j] =
        3.0 * (1.0 + 0.04 * (l[0] - 11) * (l[0] - 11) + 0.03 * (l[1] - 4) * (l[1] - 4) +
               0.05 * (l[2] - 6) * (l[2] - 6));
  }
  StrategyOptions options;
  options.prior = fit_transfer_prior({PriorSpace{other, false, {}}}, target, nullptr,
                                     options.bayesian.ensemble.trees);
  ASSERT_EQ(options.prior.cost.size(), static_cast<size_t>(target.count));
  EXPECT_LT(mean_reach(target, "bo", 120, 8, options), 25.0);
}

TEST(Bayesian, RunStrategyMeasuresThroughACallback) {
  const data::GraphRecord r = testing::small_tune_record();
  const SearchSpace s = make_search_space("toy", r.configs.view(), testing::small_tune_layout());
  // A callback that fails x = 1 by returning no positive time.
  const MeasureCallback measure = [&](int64_t j) {
    Measurement m;
    m.time = s.config_levels(j)[0] == 0 ? std::nan("") : s.runtimes[j];
    return m;
  };
  const CampaignResult a = run_strategy("model", s, measure, 12, 4, 3);
  ASSERT_EQ(a.measurements.size(), 12u);
  EXPECT_EQ(a.failed, 3);  // the three configurations with x = 1
  EXPECT_DOUBLE_EQ(a.best_so_far.back(), 10.0);
  const CampaignResult b = run_strategy("bo", s, measure, 12, 4, 3);
  for (size_t k = 0; k < a.measurements.size(); ++k)
    EXPECT_EQ(a.measurements[k].config, b.measurements[k].config);  // model is bo
  try {
    run_strategy("annealing", s, measure, 12, 4, 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("random, genetic, bo, model"), std::string::npos) << e.what();
  }
}

TEST(Bayesian, BadOptionsAreErrors) {
  BayesianOptions o;
  o.ensemble.members = 1;
  EXPECT_THROW(BayesianStrategy{o}, Error);
  o = {};
  o.explore = 1.5;
  EXPECT_THROW(BayesianStrategy{o}, Error);
  o = {};
  o.initial = 1;
  EXPECT_THROW(BayesianStrategy{o}, Error);
  // A prior made for another space.
  const SearchSpace s = bowl_space(false);
  TransferPrior prior{{1.0, 2.0}, {0.0, 0.0}};
  BayesianStrategy bo({}, prior);
  EXPECT_THROW(bo.reset(s, 0), Error);
}

}  // namespace
}  // namespace graphcost::tune
