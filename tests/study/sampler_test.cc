// Random and grid samplers: in range, deterministic per seed, the grid's order and size.
#include "study/sampler.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"

namespace graphcost::study {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

SearchSpace mixed_space() {
  return parse_space(ordered_json::parse(R"({
    "lr": {"type": "float", "low": 1e-4, "high": 1e-2, "log": true},
    "layers": {"type": "int", "low": 1, "high": 4},
    "width": {"type": "int", "low": 8, "high": 512, "log": true},
    "dropout": {"type": "float", "low": 0, "high": 0.5, "step": 0.1},
    "loss": {"type": "categorical", "choices": ["listmle", "hinge"]},
    "margin": {"type": "float", "low": 0.1, "high": 1, "condition": {"loss": ["hinge"]}}})"),
                     "space.json", nullptr);
}

// Every value of an assignment in its parameter's domain, and exactly the active parameters set.
void expect_valid(const SearchSpace& space, const json& assignment) {
  const auto active = active_parameters(space, assignment);
  ASSERT_EQ(assignment.size(), active.size()) << assignment.dump();
  for (const Parameter* p : active) {
    ASSERT_TRUE(assignment.contains(p->key)) << assignment.dump();
    EXPECT_TRUE(in_domain(*p, assignment[p->key])) << p->key << " = " << assignment[p->key];
  }
}

TEST(StudySampler, RandomStaysInRangeAndIsDeterministic) {
  const SearchSpace space = mixed_space();
  auto a = make_sampler("random", 7, json::object());
  auto b = make_sampler("random", 7, json::object());
  auto other = make_sampler("random", 8, json::object());
  std::set<int64_t> layers;
  std::set<std::string> losses;
  int different = 0;
  int below_1e3 = 0;
  for (int64_t t = 0; t < 300; ++t) {
    const json x = a->sample(space, {}, t, false);
    expect_valid(space, x);
    EXPECT_EQ(x, b->sample(space, {}, t, false));
    different += x != other->sample(space, {}, t, false);
    layers.insert(x["layers"].get<int64_t>());
    losses.insert(x["loss"].get<std::string>());
    below_1e3 += x["lr"].get<double>() < 1e-3;
  }
  EXPECT_EQ(layers, (std::set<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(losses.size(), 2u);
  EXPECT_EQ(different, 300);
  // Log-uniform on [1e-4, 1e-2]: half the draws fall below 1e-3 (150 of 300, sd 8.7); a uniform
  // draw would put 9% there (27 of 300).
  EXPECT_GT(below_1e3, 110);
  EXPECT_LT(below_1e3, 190);
}

TEST(StudySampler, GridEnumeratesInOdometerOrderWithConditions) {
  const SearchSpace space = parse_space(ordered_json::parse(R"({
    "loss": {"type": "categorical", "choices": ["listmle", "hinge"]},
    "margin": {"type": "float", "low": 0.5, "high": 1, "step": 0.5,
               "condition": {"loss": ["hinge"]}},
    "layers": {"type": "int", "low": 1, "high": 3}})"),
                                        "s", nullptr);
  // listmle x 3 layers + hinge x 2 margins x 3 layers.
  ASSERT_EQ(grid_size(space), 9);
  EXPECT_EQ(grid_point(space, 0), json::parse(R"({"loss":"listmle","layers":1})"));
  EXPECT_EQ(grid_point(space, 2), json::parse(R"({"loss":"listmle","layers":3})"));
  EXPECT_EQ(grid_point(space, 3), json::parse(R"({"loss":"hinge","margin":0.5,"layers":1})"));
  EXPECT_EQ(grid_point(space, 8), json::parse(R"({"loss":"hinge","margin":1.0,"layers":3})"));
  std::set<std::string> seen;
  for (int64_t i = 0; i < 9; ++i) seen.insert(grid_point(space, i).dump());
  EXPECT_EQ(seen.size(), 9u);
  auto grid = make_sampler("grid", 0, json::object());
  EXPECT_EQ(grid->sample(space, {}, 10, false), grid_point(space, 1));
  EXPECT_THROW(grid_point(space, 9), Error);
}

TEST(StudySampler, GridRefusesContinuousFloats) {
  try {
    grid_size(mixed_space());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "grid sampler: lr: a float parameter needs a step to be on a grid");
  }
}

TEST(StudySampler, UnknownNamesAndOptionsAreErrors) {
  auto message = [](auto&& make) {
    try {
      make();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message([] { make_sampler("cmaes", 0, json::object()); }),
            "sampler: unknown sampler \"cmaes\" (expected tpe, tpe:independent, random or grid)");
  EXPECT_EQ(message([] {
              make_sampler("tpe", 0, {{"startup", 3}});
            }),
            "tpe sampler options: startup: unknown option (expected startup_trials, candidates, "
            "prior_weight)");
  EXPECT_EQ(message([] {
              make_sampler("tpe", 0, {{"candidates", 0}});
            }),
            "tpe sampler options: candidates: expected an integer of at least 1, got 0");
  EXPECT_EQ(message([] {
              make_sampler("random", 0, {{"candidates", 2}});
            }),
            "sampler options: candidates: unknown option for the random sampler (it takes none)");
}

TEST(StudySampler, StateNamesRoundTrip) {
  for (TrialState s :
       {TrialState::Running, TrialState::Complete, TrialState::Pruned, TrialState::Failed})
    EXPECT_EQ(parse_trial_state(trial_state_name(s)), s);
  EXPECT_THROW(parse_trial_state("done"), Error);
}

}  // namespace
}  // namespace graphcost::study
