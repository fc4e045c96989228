// Pruners on hand-made learning curves: exact decisions.
#include "study/pruner.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace graphcost::study {
namespace {

using nlohmann::json;

TrialRecord curve(int64_t number, TrialState state, std::map<int64_t, double> values) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.intermediate = std::move(values);
  if (state == TrialState::Complete && !t.intermediate.empty())
    t.value = t.intermediate.rbegin()->second;
  return t;
}

TEST(StudyPruner, MedianComparesTheBestSoFarWithTheMedianAtTheStep) {
  // Five complete trials (losses, minimised); at step 2 their values are 4, 5, 6, 7, 8: median 6.
  std::vector<TrialRecord> history;
  for (int i = 0; i < 5; ++i)
    history.push_back(curve(i, TrialState::Complete, {{1, 10.0 + i}, {2, 4.0 + i}}));
  auto pruner = make_pruner("median", json::object());
  // Best so far 6.5 (step 2): worse than 6, pruned.
  EXPECT_TRUE(
      pruner->should_prune(curve(9, TrialState::Running, {{1, 9}, {2, 6.5}}), 2, history, false));
  // Best so far 5.9 (its step-1 value counts too): kept, though its step-2 value is 7.
  EXPECT_FALSE(
      pruner->should_prune(curve(9, TrialState::Running, {{1, 5.9}, {2, 7}}), 2, history, false));
  // Equal to the median: kept (strictly worse prunes).
  EXPECT_FALSE(
      pruner->should_prune(curve(9, TrialState::Running, {{1, 12}, {2, 6}}), 2, history, false));
  // Maximising: the best so far is the largest, 6.5 > 6: kept; 5.5: pruned.
  EXPECT_FALSE(
      pruner->should_prune(curve(9, TrialState::Running, {{1, 1}, {2, 6.5}}), 2, history, true));
  EXPECT_TRUE(
      pruner->should_prune(curve(9, TrialState::Running, {{1, 1}, {2, 5.5}}), 2, history, true));
  // No other trial reported step 3: kept.
  EXPECT_FALSE(pruner->should_prune(curve(9, TrialState::Running, {{3, 100}}), 3, history, false));
  // Even number of values: step 1 with a sixth (pruned) trial, values 10..14 and 20: median 12.5.
  history.push_back(curve(5, TrialState::Pruned, {{1, 20}}));
  EXPECT_TRUE(pruner->should_prune(curve(9, TrialState::Running, {{1, 12.6}}), 1, history, false));
  EXPECT_FALSE(pruner->should_prune(curve(9, TrialState::Running, {{1, 12.4}}), 1, history, false));
  // A running trial's values do not count.
  history.push_back(curve(6, TrialState::Running, {{1, 0}, {2, 0}}));
  EXPECT_FALSE(pruner->should_prune(curve(9, TrialState::Running, {{1, 12.4}}), 1, history, false));
}

TEST(StudyPruner, MedianWaitsForStartupTrialsAndWarmup) {
  std::vector<TrialRecord> history;
  for (int i = 0; i < 4; ++i) history.push_back(curve(i, TrialState::Complete, {{1, 1.0}}));
  const TrialRecord bad = curve(9, TrialState::Running, {{1, 100}});
  EXPECT_FALSE(make_pruner("median", json::object())->should_prune(bad, 1, history, false));
  EXPECT_TRUE(make_pruner("median", {{"startup_trials", 4}})->should_prune(bad, 1, history, false));
  EXPECT_FALSE(make_pruner("median", {{"startup_trials", 4}, {"warmup_steps", 2}})
                   ->should_prune(bad, 1, history, false));
}

TEST(StudyPruner, AshaPromotesTheTopThirdAtEachRung) {
  // min_resource 1, reduction factor 3: rungs at steps 1, 3, 9, ...
  auto asha = make_pruner("asha", json::object());
  std::vector<TrialRecord> history;
  // The first trial at rung 1 is the best so far there: continues.
  EXPECT_FALSE(asha->should_prune(curve(0, TrialState::Running, {{1, 0.5}}), 1, history, false));
  history.push_back(curve(0, TrialState::Running, {{1, 0.5}}));
  // A second, worse: 2 values, keep max(1, 2 / 3) = 1, the best is 0.5: pruned.
  EXPECT_TRUE(asha->should_prune(curve(1, TrialState::Running, {{1, 0.6}}), 1, history, false));
  history.push_back(curve(1, TrialState::Pruned, {{1, 0.6}}));
  history.push_back(curve(2, TrialState::Pruned, {{1, 0.7}}));
  history.push_back(curve(3, TrialState::Pruned, {{1, 0.8}}));
  history.push_back(curve(4, TrialState::Pruned, {{1, 0.9}}));
  // Six values at rung 1 with this one: keep 2. 0.55 is second best (after 0.5), 0.61 third.
  EXPECT_FALSE(asha->should_prune(curve(5, TrialState::Running, {{1, 0.55}}), 1, history, false));
  EXPECT_TRUE(asha->should_prune(curve(5, TrialState::Running, {{1, 0.61}}), 1, history, false));
  // Step 2 is no rung: no decision however bad.
  EXPECT_FALSE(
      asha->should_prune(curve(5, TrialState::Running, {{1, 0.55}, {2, 9}}), 2, history, false));
  // Rung 3: trial 0 reached it with 0.4; trial 5 arrives with 0.45 (2 values, keep 1): pruned.
  history[0].intermediate[3] = 0.4;
  EXPECT_TRUE(asha->should_prune(curve(5, TrialState::Running, {{1, 0.55}, {2, 0.5}, {3, 0.45}}), 3,
                                 history, false));
  // A report that jumps past a rung is judged there with that value: step 4 passes rung 3.
  EXPECT_FALSE(
      asha->should_prune(curve(5, TrialState::Running, {{1, 0.55}, {4, 0.3}}), 4, history, false));
  // Maximising flips it: at rung 3, 0.45 beats 0.4.
  EXPECT_FALSE(asha->should_prune(curve(5, TrialState::Running, {{1, 0.55}, {2, 0.5}, {3, 0.45}}),
                                  3, history, true));
}

TEST(StudyPruner, AshaRungsFollowMinResourceAndReductionFactor) {
  // min_resource 2, reduction factor 2: rungs at 2, 4, 8; step 1 and 3 are no rungs.
  auto asha = make_pruner("asha", {{"min_resource", 2}, {"reduction_factor", 2}});
  std::vector<TrialRecord> history = {
      curve(0, TrialState::Complete, {{1, 0}, {2, 0}, {3, 0}, {4, 0}})};
  const TrialRecord worse = curve(1, TrialState::Running, {{1, 1}, {2, 1}, {3, 1}, {4, 1}});
  EXPECT_FALSE(asha->should_prune(worse, 1, history, false));
  EXPECT_FALSE(asha->should_prune(worse, 3, history, false));
  // At rung 2: two values, keep max(1, 2 / 2) = 1: the worse is pruned.
  TrialRecord at2 = curve(1, TrialState::Running, {{1, 1}, {2, 1}});
  EXPECT_TRUE(asha->should_prune(at2, 2, history, false));
  // With a third trial at 2 (value 5), three values keep 1 still; with four, keep 2.
  history.push_back(curve(2, TrialState::Pruned, {{2, 5}}));
  EXPECT_TRUE(asha->should_prune(at2, 2, history, false));
  history.push_back(curve(3, TrialState::Pruned, {{2, 6}}));
  EXPECT_FALSE(asha->should_prune(at2, 2, history, false));
}

TEST(StudyPruner, NoneNeverPrunesAndBadNamesAreErrors) {
  auto none = make_pruner("none", json::object());
  EXPECT_FALSE(none->should_prune(curve(0, TrialState::Running, {{1, 1e9}}), 1,
                                  {curve(1, TrialState::Complete, {{1, 0}})}, false));
  try {
    make_pruner("hyperband", json::object());
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "pruner: unknown pruner \"hyperband\" (expected median, asha or none)");
  }
  try {
    make_pruner("asha", {{"eta", 3}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "asha pruner options: eta: unknown option (expected min_resource, "
                 "reduction_factor)");
  }
  try {
    make_pruner("asha", {{"reduction_factor", 1}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "asha pruner options: reduction_factor: expected an integer of at least 2, got 1");
  }
}

}  // namespace
}  // namespace graphcost::study
