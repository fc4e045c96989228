#include "tune/campaign.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "test_space.h"
#include "tune/reach.h"

namespace graphcost::tune {
namespace {

// Proposes a fixed list of configurations in order.
class ScriptedStrategy : public Strategy {
 public:
  explicit ScriptedStrategy(std::vector<int64_t> order) : order_(std::move(order)) {}
  std::string name() const override { return "scripted"; }
  void reset(const SearchSpace&, uint64_t) override { next_ = 0; }
  std::vector<int64_t> propose(const SearchSpace&, const History&, int64_t count) override {
    std::vector<int64_t> out;
    while (static_cast<int64_t>(out.size()) < count && next_ < order_.size())
      out.push_back(order_[next_++]);
    return out;
  }

 private:
  std::vector<int64_t> order_;
  size_t next_ = 0;
};

TEST(Campaign, RandomNeverRepeatsAndStopsAtTheBudget) {
  const SearchSpace s = testing::toy_space();
  RecordedMeasurer m(s);
  RandomStrategy random;
  const CampaignResult r = run_campaign(s, random, m, 7, 3, 5);
  ASSERT_EQ(r.measurements.size(), 7u);
  ASSERT_EQ(r.best_so_far.size(), 7u);
  std::set<int64_t> seen;
  for (const Measurement& x : r.measurements) seen.insert(x.config);
  EXPECT_EQ(seen.size(), 7u);
  // A budget beyond the space measures each configuration exactly once.
  const CampaignResult all = run_campaign(s, random, m, 100, 5, 5);
  std::set<int64_t> every;
  for (const Measurement& x : all.measurements) every.insert(x.config);
  EXPECT_EQ(all.measurements.size(), 12u);
  EXPECT_EQ(every.size(), 12u);
  EXPECT_EQ(all.failed, 2);
  EXPECT_DOUBLE_EQ(all.best_so_far.back(), 10.0);
}

TEST(Campaign, SeededRandomSearchIsReproducible) {
  const SearchSpace s = testing::toy_space();
  RecordedMeasurer m(s);
  RandomStrategy a, b;
  const CampaignResult r1 = run_campaign(s, a, m, 9, 2, 42);
  const CampaignResult r2 = run_campaign(s, b, m, 9, 4, 42);  // batch size does not matter
  const CampaignResult r3 = run_campaign(s, a, m, 9, 2, 43);
  auto configs = [](const CampaignResult& r) {
    std::vector<int64_t> out;
    for (const Measurement& x : r.measurements) out.push_back(x.config);
    return out;
  };
  EXPECT_EQ(configs(r1), configs(r2));
  EXPECT_NE(configs(r1), configs(r3));
}

TEST(Campaign, FailedConfigurationsCostAMeasurementAndGiveNoTime) {
  const SearchSpace s = testing::toy_space();
  RecordedMeasurer m(s);
  // 2 and 11 failed; 0 is x=1,y=0 (12); 7 is x=4,y=1 (11); 6 is the optimum (10).
  ScriptedStrategy scripted({2, 11, 0, 7, 6});
  const CampaignResult r = run_campaign(s, scripted, m, 4, 1, 0);
  ASSERT_EQ(r.measurements.size(), 4u);
  EXPECT_TRUE(r.measurements[0].failed);
  EXPECT_TRUE(r.measurements[1].failed);
  EXPECT_EQ(r.failed, 2);
  EXPECT_TRUE(std::isinf(r.best_so_far[0]));
  EXPECT_TRUE(std::isinf(r.best_so_far[1]));
  EXPECT_DOUBLE_EQ(r.best_so_far[2], 12.0);
  EXPECT_DOUBLE_EQ(r.best_so_far[3], 11.0);
}

TEST(Campaign, ReachOnAKnownOptimum) {
  const SearchSpace s = testing::toy_space();
  RecordedMeasurer m(s);
  ScriptedStrategy first({0, 2, 3, 7, 6});  // 12, failed, 11, 11, 10
  ScriptedStrategy second({8, 6});          // 12, 10
  std::vector<std::vector<double>> curves = {run_campaign(s, first, m, 5, 2, 0).best_so_far,
                                             run_campaign(s, second, m, 5, 2, 0).best_so_far};
  EXPECT_EQ(curves[0], (std::vector<double>{12, 12, 11, 11, 10}));
  const double optimum = s.optimum();
  const ReachSummary within1 = summarize_reach(curves, optimum, 0.01);
  EXPECT_EQ(within1.per_seed, (std::vector<int64_t>{5, 2}));
  EXPECT_DOUBLE_EQ(within1.mean, 3.5);
  EXPECT_EQ(within1.seeds_reached, 2);
  const ReachSummary within10 = summarize_reach(curves, optimum, 0.10);  // <= 11
  EXPECT_EQ(within10.per_seed, (std::vector<int64_t>{3, 2}));
  const ReachSummary within20 = summarize_reach(curves, optimum, 0.20);  // <= 12
  EXPECT_EQ(within20.per_seed, (std::vector<int64_t>{1, 1}));
  EXPECT_DOUBLE_EQ(within20.mean, 1.0);
}

TEST(Campaign, ARepeatedProposalIsAnError) {
  const SearchSpace s = testing::toy_space();
  RecordedMeasurer m(s);
  ScriptedStrategy repeats({1, 1});
  EXPECT_THROW(run_campaign(s, repeats, m, 5, 1, 0), Error);
  ScriptedStrategy outside({12});
  EXPECT_THROW(run_campaign(s, outside, m, 5, 1, 0), Error);
}

TEST(Reach, UnreachedSeedsAndMeanCurve) {
  const double inf = INFINITY;
  const std::vector<std::vector<double>> curves = {{inf, 5, 4}, {6, 6}};
  const ReachSummary r = summarize_reach(curves, 4.0, 0.0);
  EXPECT_EQ(r.per_seed, (std::vector<int64_t>{3, -1}));
  EXPECT_EQ(r.seeds_reached, 1);
  EXPECT_DOUBLE_EQ(r.mean, 3.0);
  const std::vector<double> mean = mean_curve(curves);
  ASSERT_EQ(mean.size(), 3u);
  EXPECT_DOUBLE_EQ(mean[0], 6.0);  // the first seed has no success yet
  EXPECT_DOUBLE_EQ(mean[1], 5.5);
  EXPECT_DOUBLE_EQ(mean[2], 5.0);  // the second seed keeps its last value
  EXPECT_EQ(measurements_to_reach({}, 1.0), -1);
  const ReachSummary none = summarize_reach({{7, 7}}, 4.0, 0.01);
  EXPECT_TRUE(std::isnan(none.mean));
}

}  // namespace
}  // namespace graphcost::tune
