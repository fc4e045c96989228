// A study's search space: the training options a study tunes and the ranges they are drawn from,
// read from a space file (docs/study.md, "Space files").
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace graphcost::study {

// One tuned option.
struct Parameter {
  std::string key;  // dotted option key: "lr", "model.hidden", "xgboost.eta"
  enum class Kind { Int, Float, Categorical } kind = Kind::Float;
  double low = 0, high = 0;
  double step = 0;  // 0: continuous (floats only; an int's step is at least 1)
  bool log = false;
  std::vector<nlohmann::json> choices;  // categorical
  // null, or {"other.key": [allowed values...]}: the parameter exists only when the other
  // parameter (earlier in file order) exists and has one of these values.
  nlohmann::json condition;
};

struct SearchSpace {
  std::vector<Parameter> parameters;  // file order
  // The parameter with this key, or nullptr.
  const Parameter* find(const std::string& key) const;
};

// Parses a space file's JSON object {"lr": {"type": "float", "low": 1e-4, "high": 1e-2, "log":
// true}, "model.hidden": {"type": "categorical", "choices": [[64], [128, 128]]}, ...}. File order
// is the object's key order: parse the file as nlohmann::ordered_json to keep it (a
// nlohmann::json holds its keys sorted). Every problem is an Error(where, key, problem) of one
// line. `known_key` (may be null) says whether a dotted key names a real option.
SearchSpace parse_space(const nlohmann::ordered_json& j, const std::string& where,
                        const std::function<bool(const std::string&)>& known_key);
SearchSpace parse_space(const nlohmann::json& j, const std::string& where,
                        const std::function<bool(const std::string&)>& known_key);

// Whether the parameter's condition holds for a (partial) assignment: no condition, or the
// condition's key is assigned one of the allowed values.
bool condition_met(const Parameter& parameter, const nlohmann::json& assignment);

// The parameters active for a partial assignment (conditions met), in file order.
std::vector<const Parameter*> active_parameters(const SearchSpace& space,
                                                const nlohmann::json& assignment);

// Whether a value lies in the parameter's domain (integral for ints, on the step grid, one of
// the choices).
bool in_domain(const Parameter& parameter, const nlohmann::json& value);

// Samplers work in an internal coordinate: log(value) for log parameters, the value itself for
// other numeric ones, the choice's index for categorical ones. nullopt when the value is not in
// the domain (a trial recorded under another space).
std::optional<double> internal_value(const Parameter& parameter, const nlohmann::json& value);

// The internal interval a numeric parameter's density lives on: [low, high] (logs for log
// parameters), widened by half a step on each side for stepped ones so that every grid value
// owns an interval of the same width (before the log).
std::pair<double, double> internal_range(const Parameter& parameter);

// The parameter's value for an internal coordinate: exp for log parameters, rounded to the step
// grid (ints to integers), clamped to [low, high]; categorical: the choice at the index.
nlohmann::json value_of_internal(const Parameter& parameter, double internal);

}  // namespace graphcost::study
