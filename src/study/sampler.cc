#include "study/sampler.h"

#include <cmath>

#include "core/error.h"
#include "study/tpe.h"

namespace graphcost::study {

namespace {

using nlohmann::json;

constexpr int64_t kMaxGridSize = 1000000;

class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(uint64_t seed) : seed_(seed) {}
  json sample(const SearchSpace& space, const std::vector<TrialRecord>&, int64_t trial_number,
              bool) override {
    graphcost::Random random = random_stream(seed_, static_cast<uint64_t>(trial_number));
    return sample_random(space, random);
  }

 private:
  uint64_t seed_;
};

class GridSampler : public Sampler {
 public:
  json sample(const SearchSpace& space, const std::vector<TrialRecord>&, int64_t trial_number,
              bool) override {
    return grid_point(space, trial_number % grid_size(space));
  }
};

// The values a parameter takes on the grid.
std::vector<json> grid_values(const Parameter& p) {
  if (p.kind == Parameter::Kind::Categorical) return p.choices;
  if (p.step == 0)
    throw Error("grid sampler", p.key, "a float parameter needs a step to be on a grid");
  const int64_t count = std::llround((p.high - p.low) / p.step) + 1;
  if (count > kMaxGridSize) throw Error("grid sampler", p.key, "more than 1000000 grid values");
  std::vector<json> values;
  for (int64_t i = 0; i < count; ++i) {
    const double v = p.low + static_cast<double>(i) * p.step;
    if (p.kind == Parameter::Kind::Int)
      values.push_back(std::llround(v));
    else
      values.push_back(v);
  }
  return values;
}

// Every grid point in odometer order, conditional parameters taking part where active.
void enumerate_grid(const SearchSpace& space, size_t next, json& assignment,
                    std::vector<json>& points) {
  if (next == space.parameters.size()) {
    points.push_back(assignment);
    if (static_cast<int64_t>(points.size()) > kMaxGridSize)
      throw Error("grid sampler", "", "the grid has more than 1000000 points");
    return;
  }
  const Parameter& p = space.parameters[next];
  if (!condition_met(p, assignment)) {
    enumerate_grid(space, next + 1, assignment, points);
    return;
  }
  for (const json& value : grid_values(p)) {
    assignment[p.key] = value;
    enumerate_grid(space, next + 1, assignment, points);
  }
  assignment.erase(p.key);
}

std::vector<json> all_grid_points(const SearchSpace& space) {
  std::vector<json> points;
  json assignment = json::object();
  enumerate_grid(space, 0, assignment, points);
  return points;
}

}  // namespace

const char* trial_state_name(TrialState state) {
  switch (state) {
    case TrialState::Running:
      return "running";
    case TrialState::Complete:
      return "complete";
    case TrialState::Pruned:
      return "pruned";
    case TrialState::Failed:
      return "failed";
  }
  return "?";
}

TrialState parse_trial_state(const std::string& name) {
  for (TrialState s :
       {TrialState::Running, TrialState::Complete, TrialState::Pruned, TrialState::Failed})
    if (name == trial_state_name(s)) return s;
  throw Error("trial state", "", "unknown state \"" + name + "\"");
}

json sample_random_parameter(const Parameter& p, graphcost::Random& random) {
  if (p.kind == Parameter::Kind::Categorical) return p.choices[random.below(p.choices.size())];
  if (p.step > 0) {
    const uint64_t count = static_cast<uint64_t>(std::llround((p.high - p.low) / p.step)) + 1;
    const double v = p.low + static_cast<double>(random.below(count)) * p.step;
    return value_of_internal(p, v);  // exact grid value, integral for ints
  }
  if (p.log) {
    const double low = std::log(p.low), high = std::log(p.high);
    return value_of_internal(p, low + random.uniform() * (high - low));
  }
  return value_of_internal(p, p.low + random.uniform() * (p.high - p.low));
}

json sample_random(const SearchSpace& space, graphcost::Random& random) {
  json assignment = json::object();
  for (const Parameter& p : space.parameters)
    if (condition_met(p, assignment)) assignment[p.key] = sample_random_parameter(p, random);
  return assignment;
}

int64_t grid_size(const SearchSpace& space) {
  return static_cast<int64_t>(all_grid_points(space).size());
}

json grid_point(const SearchSpace& space, int64_t index) {
  std::vector<json> points = all_grid_points(space);
  if (index < 0 || index >= static_cast<int64_t>(points.size()))
    throw Error("grid sampler", "",
                "grid index " + std::to_string(index) + " outside [0, " +
                    std::to_string(points.size()) + ")");
  return points[static_cast<size_t>(index)];
}

std::unique_ptr<Sampler> make_sampler(const std::string& name, uint64_t seed, const json& options) {
  const json given = options.is_null() ? json::object() : options;
  if (!given.is_object()) throw Error("sampler options", "", "expected a JSON object");
  if (name == "random" || name == "grid") {
    if (!given.empty())
      throw Error("sampler options", given.begin().key(),
                  "unknown option for the " + name + " sampler (it takes none)");
    if (name == "random") return std::make_unique<RandomSampler>(seed);
    return std::make_unique<GridSampler>();
  }
  if (name == "tpe" || name == "tpe:independent") {
    TpeOptions tpe = parse_tpe_options(given);
    tpe.multivariate = name == "tpe";
    return std::make_unique<TpeSampler>(seed, tpe);
  }
  throw Error("sampler", "",
              "unknown sampler \"" + name + "\" (expected tpe, tpe:independent, random or grid)");
}

}  // namespace graphcost::study
