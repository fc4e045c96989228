#include "study/space.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace graphcost::study {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

const char* type_name(Parameter::Kind kind) {
  switch (kind) {
    case Parameter::Kind::Int:
      return "int";
    case Parameter::Kind::Float:
      return "float";
    case Parameter::Kind::Categorical:
      return "categorical";
  }
  return "?";
}

double number_field(const ordered_json& spec, const char* field, const std::string& where,
                    const std::string& key) {
  if (!spec.contains(field)) throw Error(where, key, std::string("missing \"") + field + "\"");
  const ordered_json& value = spec[field];
  if (!value.is_number())
    throw Error(where, key, std::string("\"") + field + "\" must be a number, got " + value.dump());
  return value.get<double>();
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

// The number of steps of the range, when step divides high - low (to a relative 1e-9).
bool step_divides(double low, double high, double step) {
  const double steps = (high - low) / step;
  return std::fabs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, steps);
}

Parameter parse_parameter(const std::string& key, const ordered_json& spec,
                          const SearchSpace& earlier, const std::string& where) {
  if (!spec.is_object()) throw Error(where, key, "expected an object with a \"type\"");
  if (!spec.contains("type") || !spec["type"].is_string())
    throw Error(where, key, "missing \"type\" (int, float or categorical)");
  Parameter p;
  p.key = key;
  const std::string type = spec["type"].get<std::string>();
  if (type == "int")
    p.kind = Parameter::Kind::Int;
  else if (type == "float")
    p.kind = Parameter::Kind::Float;
  else if (type == "categorical")
    p.kind = Parameter::Kind::Categorical;
  else
    throw Error(where, key, "unknown type \"" + type + "\" (expected int, float or categorical)");

  const bool numeric = p.kind != Parameter::Kind::Categorical;
  for (const auto& [field, value] : spec.items()) {
    const bool known =
        field == "type" || field == "condition" ||
        (numeric && (field == "low" || field == "high" || field == "step" || field == "log")) ||
        (!numeric && field == "choices");
    if (!known)
      throw Error(where, key, "unknown field \"" + field + "\" for type " + type_name(p.kind));
  }

  if (numeric) {
    p.low = number_field(spec, "low", where, key);
    p.high = number_field(spec, "high", where, key);
    if (spec.contains("log")) {
      if (!spec["log"].is_boolean())
        throw Error(where, key, "\"log\" must be true or false, got " + spec["log"].dump());
      p.log = spec["log"].get<bool>();
    }
    if (spec.contains("step")) {
      p.step = number_field(spec, "step", where, key);
      if (!(p.step > 0))
        throw Error(where, key, "step must be positive, got " + number_text(p.step));
      if (p.log) throw Error(where, key, "log and step cannot be combined");
    }
    if (p.kind == Parameter::Kind::Int) {
      if (p.low != std::floor(p.low) || p.high != std::floor(p.high) ||
          p.step != std::floor(p.step))
        throw Error(where, key, "an int parameter needs integral low, high and step");
      if (p.step == 0) p.step = 1;
    }
    if (!(p.low < p.high))
      throw Error(
          where, key,
          "low (" + number_text(p.low) + ") must be below high (" + number_text(p.high) + ")");
    if (p.log && p.low <= 0)
      throw Error(where, key, "log needs low > 0, got " + number_text(p.low));
    if (p.step > 0 && !step_divides(p.low, p.high, p.step))
      throw Error(where, key,
                  "step " + number_text(p.step) + " does not divide the range [" +
                      number_text(p.low) + ", " + number_text(p.high) + "]");
  } else {
    if (!spec.contains("choices") || !spec["choices"].is_array())
      throw Error(where, key, "missing \"choices\" (an array)");
    for (const ordered_json& choice : spec["choices"]) {
      json value = json::parse(choice.dump());
      for (const json& seen : p.choices)
        if (seen == value) throw Error(where, key, "choice " + value.dump() + " is repeated");
      p.choices.push_back(std::move(value));
    }
    if (p.choices.empty()) throw Error(where, key, "choices is empty");
  }

  if (spec.contains("condition") && !spec["condition"].is_null()) {
    const ordered_json& condition = spec["condition"];
    if (!condition.is_object() || condition.size() != 1 || !condition.begin().value().is_array() ||
        condition.begin().value().empty())
      throw Error(
          where, key,
          "condition must be {\"other.key\": [allowed values...]}, got " + condition.dump());
    const std::string other = condition.begin().key();
    const Parameter* parent = earlier.find(other);
    if (parent == nullptr) {
      if (other == key) throw Error(where, key, "condition names the parameter itself");
      throw Error(where, key,
                  "condition names \"" + other +
                      "\", which is not a parameter defined earlier in the file");
    }
    for (const ordered_json& allowed : condition.begin().value()) {
      const json value = json::parse(allowed.dump());
      if (!in_domain(*parent, value))
        throw Error(where, key,
                    "condition value " + value.dump() + " is not a value of \"" + other + "\"");
    }
    p.condition = json::parse(condition.dump());
  }
  return p;
}

}  // namespace

const Parameter* SearchSpace::find(const std::string& key) const {
  for (const Parameter& p : parameters)
    if (p.key == key) return &p;
  return nullptr;
}

SearchSpace parse_space(const ordered_json& j, const std::string& where,
                        const std::function<bool(const std::string&)>& known_key) {
  if (!j.is_object())
    throw Error(where, "", "expected a JSON object of parameters (\"key\": {\"type\": ...})");
  if (j.empty()) throw Error(where, "", "the space has no parameters");
  SearchSpace space;
  for (const auto& [key, spec] : j.items()) {
    if (known_key && !known_key(key)) throw Error(where, key, "not a known option");
    space.parameters.push_back(parse_parameter(key, spec, space, where));
  }
  return space;
}

SearchSpace parse_space(const json& j, const std::string& where,
                        const std::function<bool(const std::string&)>& known_key) {
  return parse_space(ordered_json::parse(j.dump()), where, known_key);
}

bool condition_met(const Parameter& parameter, const json& assignment) {
  if (parameter.condition.is_null()) return true;
  const auto condition = parameter.condition.begin();
  const std::string& other = condition.key();
  const json& allowed = condition.value();
  if (!assignment.is_object() || !assignment.contains(other)) return false;
  for (const json& value : allowed)
    if (assignment[other] == value) return true;
  return false;
}

std::vector<const Parameter*> active_parameters(const SearchSpace& space, const json& assignment) {
  std::vector<const Parameter*> active;
  for (const Parameter& p : space.parameters)
    if (condition_met(p, assignment)) active.push_back(&p);
  return active;
}

bool in_domain(const Parameter& p, const json& value) {
  if (p.kind == Parameter::Kind::Categorical) {
    for (const json& choice : p.choices)
      if (choice == value) return true;
    return false;
  }
  if (!value.is_number()) return false;
  if (p.kind == Parameter::Kind::Int && !value.is_number_integer()) return false;
  const double v = value.get<double>();
  if (!(v >= p.low && v <= p.high)) return false;
  return p.step == 0 || step_divides(p.low, v, p.step);
}

std::optional<double> internal_value(const Parameter& p, const json& value) {
  if (!in_domain(p, value)) return std::nullopt;
  if (p.kind == Parameter::Kind::Categorical) {
    for (size_t i = 0; i < p.choices.size(); ++i)
      if (p.choices[i] == value) return static_cast<double>(i);
  }
  const double v = value.get<double>();
  return p.log ? std::log(v) : v;
}

std::pair<double, double> internal_range(const Parameter& p) {
  const double half = p.step / 2;
  const double low = p.low - half, high = p.high + half;
  if (p.log) return {std::log(low), std::log(high)};
  return {low, high};
}

json value_of_internal(const Parameter& p, double internal) {
  if (p.kind == Parameter::Kind::Categorical) {
    const double index = std::round(internal);
    const size_t i = index < 0 ? 0 : std::min(p.choices.size() - 1, static_cast<size_t>(index));
    return p.choices[i];
  }
  double v = p.log ? std::exp(internal) : internal;
  if (p.step > 0) v = p.low + std::round((v - p.low) / p.step) * p.step;
  v = std::min(p.high, std::max(p.low, v));
  if (p.kind == Parameter::Kind::Int) return static_cast<int64_t>(std::llround(v));
  return v;
}

}  // namespace graphcost::study
