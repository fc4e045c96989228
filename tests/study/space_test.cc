// Parsing space files: the accepted forms and the one-line message of every refusal.
#include "study/space.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace graphcost::study {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

SearchSpace parse(const std::string& text,
                  std::function<bool(const std::string&)> known = nullptr) {
  return parse_space(ordered_json::parse(text), "space.json", known);
}

std::string error_of(const std::string& text,
                     std::function<bool(const std::string&)> known = nullptr) {
  try {
    parse(text, known);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(StudySpace, ParsesTheExampleInFileOrder) {
  const SearchSpace space = parse(R"({
    "model.layers": {"type": "int", "low": 1, "high": 4},
    "lr": {"type": "float", "low": 1e-4, "high": 1e-2, "log": true},
    "model.hidden": {"type": "categorical", "choices": [[64], [128, 128]]},
    "model.dropout": {"type": "float", "low": 0, "high": 0.5, "step": 0.1},
    "xgboost.eta": {"type": "float", "low": 0.1, "high": 0.3,
                    "condition": {"model.hidden": [[64]]}}})");
  ASSERT_EQ(space.parameters.size(), 5u);
  const Parameter& layers = space.parameters[0];
  EXPECT_EQ(layers.key, "model.layers");
  EXPECT_EQ(layers.kind, Parameter::Kind::Int);
  EXPECT_EQ(layers.low, 1);
  EXPECT_EQ(layers.high, 4);
  EXPECT_EQ(layers.step, 1);  // an int's step defaults to 1
  const Parameter& lr = space.parameters[1];
  EXPECT_EQ(lr.key, "lr");
  EXPECT_TRUE(lr.log);
  EXPECT_EQ(lr.step, 0);
  const Parameter& hidden = space.parameters[2];
  EXPECT_EQ(hidden.kind, Parameter::Kind::Categorical);
  EXPECT_EQ(hidden.choices, (std::vector<json>{json::parse("[64]"), json::parse("[128,128]")}));
  EXPECT_DOUBLE_EQ(space.parameters[3].step, 0.1);
  EXPECT_EQ(space.parameters[4].condition, json::parse(R"({"model.hidden": [[64]]})"));
  EXPECT_TRUE(space.parameters[0].condition.is_null());

  // Active parameters follow the condition.
  auto keys = [&](const json& assignment) {
    std::vector<std::string> out;
    for (const Parameter* p : active_parameters(space, assignment)) out.push_back(p->key);
    return out;
  };
  EXPECT_EQ(keys(json::object()).size(), 4u);
  EXPECT_EQ(keys({{"model.hidden", {64}}}).back(), "xgboost.eta");
  EXPECT_EQ(keys({{"model.hidden", {128, 128}}}).back(), "model.dropout");
}

TEST(StudySpace, RefusesEachBadCaseWithOneLine) {
  EXPECT_EQ(error_of(R"({"a": {"type": "double", "low": 0, "high": 1}})"),
            "space.json: a: unknown type \"double\" (expected int, float or categorical)");
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "low": 2, "high": 1}})"),
            "space.json: a: low (2) must be below high (1)");
  EXPECT_EQ(error_of(R"({"a": {"type": "int", "low": 3, "high": 3}})"),
            "space.json: a: low (3) must be below high (3)");
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "low": 0, "high": 1, "log": true}})"),
            "space.json: a: log needs low > 0, got 0");
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "low": 0, "high": 1, "step": 0.3}})"),
            "space.json: a: step 0.3 does not divide the range [0, 1]");
  EXPECT_EQ(error_of(R"({"a": {"type": "int", "low": 0, "high": 10, "step": 4}})"),
            "space.json: a: step 4 does not divide the range [0, 10]");
  EXPECT_EQ(error_of(R"({"a": {"type": "categorical", "choices": []}})"),
            "space.json: a: choices is empty");
  EXPECT_EQ(error_of(R"({"a": {"type": "categorical", "choices": [1, 1]}})"),
            "space.json: a: choice 1 is repeated");
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "low": 0, "high": 1, "condition": {"b": [1]}}})"),
            "space.json: a: condition names \"b\", which is not a parameter defined earlier in "
            "the file");
  // A later key is refused the same way: conditions look back only.
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "low": 0, "high": 1, "condition": {"b": [1]}},
                         "b": {"type": "int", "low": 0, "high": 2}})"),
            "space.json: a: condition names \"b\", which is not a parameter defined earlier in "
            "the file");
  EXPECT_EQ(error_of(R"({"b": {"type": "int", "low": 0, "high": 2},
                         "a": {"type": "float", "low": 0, "high": 1, "condition": {"b": [7]}}})"),
            "space.json: a: condition value 7 is not a value of \"b\"");
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "low": 0, "high": 1, "lo": 0}})"),
            "space.json: a: unknown field \"lo\" for type float");
  EXPECT_EQ(error_of(R"({"a": {"type": "categorical", "choices": [1], "low": 0}})"),
            "space.json: a: unknown field \"low\" for type categorical");
  EXPECT_EQ(error_of(R"({"a": {"type": "int", "low": 0.5, "high": 2}})"),
            "space.json: a: an int parameter needs integral low, high and step");
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "low": 1, "high": 2, "log": true, "step": 0.5}})"),
            "space.json: a: log and step cannot be combined");
  EXPECT_EQ(error_of(R"({"a": {"type": "float", "high": 2}})"), "space.json: a: missing \"low\"");
  EXPECT_EQ(error_of(R"({"a": {"low": 0}})"),
            "space.json: a: missing \"type\" (int, float or categorical)");
  EXPECT_EQ(error_of(R"([1])"),
            "space.json: expected a JSON object of parameters (\"key\": {\"type\": ...})");
  EXPECT_EQ(error_of(R"({})"), "space.json: the space has no parameters");
  auto known = [](const std::string& key) { return key == "lr"; };
  EXPECT_EQ(error_of(R"({"lr": {"type": "float", "low": 0, "high": 1},
                         "model.hiddn": {"type": "int", "low": 0, "high": 1}})",
                     known),
            "space.json: model.hiddn: not a known option");
}

TEST(StudySpace, DomainAndInternalCoordinates) {
  const SearchSpace space = parse(R"({
    "i": {"type": "int", "low": 2, "high": 10, "step": 2},
    "f": {"type": "float", "low": 1, "high": 100, "log": true},
    "c": {"type": "categorical", "choices": ["x", "y"]}})");
  const Parameter& i = space.parameters[0];
  const Parameter& f = space.parameters[1];
  const Parameter& c = space.parameters[2];
  EXPECT_TRUE(in_domain(i, 4));
  EXPECT_FALSE(in_domain(i, 5));
  EXPECT_FALSE(in_domain(i, 4.0));  // an int parameter's value is a JSON integer
  EXPECT_FALSE(in_domain(i, 12));
  EXPECT_EQ(value_of_internal(i, 4.9), json(4));
  EXPECT_EQ(value_of_internal(i, 5.1), json(6));
  EXPECT_EQ(value_of_internal(i, 50), json(10));
  EXPECT_EQ(internal_range(i), std::make_pair(1.0, 11.0));
  EXPECT_DOUBLE_EQ(*internal_value(f, 10.0), std::log(10.0));
  EXPECT_DOUBLE_EQ(value_of_internal(f, std::log(10.0)).get<double>(), 10.0);
  EXPECT_EQ(*internal_value(c, "y"), 1.0);
  EXPECT_FALSE(internal_value(c, "z").has_value());
  EXPECT_EQ(value_of_internal(c, 1), json("y"));
}

}  // namespace
}  // namespace graphcost::study
