// Expanding sweep files into combinations.
#include "sweep/spec.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"

namespace graphcost::sweep {
namespace {

using nlohmann::json;

TEST(SweepSpec, SetDottedCreatesNestedObjects) {
  json options = {{"lr", 0.1}, {"model", {{"hidden", {8}}}}};
  set_dotted(options, "model.dropout", 0.2);
  set_dotted(options, "lr", 0.01);
  set_dotted(options, "a.b.c", true);
  EXPECT_EQ(options, json::parse(R"({"lr":0.01,"model":{"hidden":[8],"dropout":0.2},
                                     "a":{"b":{"c":true}}})"));
}

TEST(SweepSpec, VariantsTimesGridInOdometerOrder) {
  const json spec = json::parse(R"({
    "base": {"iterations": 10, "model": {"hidden": [8]}},
    "variants": [{"name": "baseline"}, {"name": "+attention", "set": {"model.attention": true}}],
    "grid": {"loss": ["listmle", "hinge"], "lr": [0.001, 0.01]}
  })");
  const std::vector<Combination> c = expand_sweep(spec, 0, "f.json");
  ASSERT_EQ(c.size(), 8u);
  EXPECT_EQ(c[0].id, "c000");
  EXPECT_EQ(c[0].name, "baseline loss=listmle lr=0.001");
  EXPECT_EQ(c[1].name, "baseline loss=listmle lr=0.01");
  EXPECT_EQ(c[2].name, "baseline loss=hinge lr=0.001");
  EXPECT_EQ(c[7].id, "c007");
  EXPECT_EQ(c[7].name, "+attention loss=hinge lr=0.01");
  EXPECT_EQ(c[7].options, json::parse(R"({"iterations":10,"loss":"hinge","lr":0.01,
                                          "model":{"hidden":[8],"attention":true}})"));
  EXPECT_EQ(c[7].settings, json::parse(R"({"model.attention":true,"loss":"hinge","lr":0.01})"));
  EXPECT_EQ(c[0].options, json::parse(R"({"iterations":10,"loss":"listmle","lr":0.001,
                                          "model":{"hidden":[8]}})"));
}

TEST(SweepSpec, EmptySpecIsOneBaseCombination) {
  const std::vector<Combination> c = expand_sweep(json::object(), 0, "f.json");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].name, "base");
  EXPECT_EQ(c[0].options, json::object());
}

TEST(SweepSpec, RandomSamplesAreSeededAndInRange) {
  const json spec = json::parse(R"({"random": {"samples": 50, "ranges": {
      "lr": {"log_uniform": [0.0001, 0.01]}, "model.dropout": {"uniform": [0.1, 0.3]},
      "slate_size": {"int": [8, 10]}, "loss": {"choice": ["listmle", "hinge"]}}}})");
  const std::vector<Combination> a = expand_sweep(spec, 7, "f.json");
  const std::vector<Combination> b = expand_sweep(spec, 7, "f.json");
  const std::vector<Combination> other = expand_sweep(spec, 8, "f.json");
  ASSERT_EQ(a.size(), 50u);
  std::set<int64_t> slates;
  std::set<std::string> losses;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].options, b[i].options);
    const double lr = a[i].options["lr"].get<double>();
    EXPECT_GE(lr, 1e-4);
    EXPECT_LE(lr, 1e-2);
    const double dropout = a[i].options["model"]["dropout"].get<double>();
    EXPECT_GE(dropout, 0.1);
    EXPECT_LE(dropout, 0.3);
    slates.insert(a[i].options["slate_size"].get<int64_t>());
    losses.insert(a[i].options["loss"].get<std::string>());
  }
  EXPECT_EQ(slates, (std::set<int64_t>{8, 9, 10}));
  EXPECT_EQ(losses, (std::set<std::string>{"listmle", "hinge"}));
  EXPECT_NE(a[0].options, other[0].options);
}

TEST(SweepSpec, BadSpecsNameTheKey) {
  auto message = [](const char* text) {
    try {
      expand_sweep(json::parse(text), 0, "f.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(R"({"grids": {}})").find("grids"), std::string::npos);
  EXPECT_NE(message(R"({"grid": {"lr": []}})").find("grid.lr"), std::string::npos);
  EXPECT_NE(message(R"({"variants": [{"set": {}}]})").find("name"), std::string::npos);
  EXPECT_NE(message(R"({"random": {"samples": 2, "ranges": {"lr": {"gauss": [0, 1]}}}})")
                .find("random.ranges.lr"),
            std::string::npos);
  EXPECT_NE(message(R"({"random": {"samples": 2, "ranges": {"lr": {"log_uniform": [0, 1]}}}})")
                .find("low > 0"),
            std::string::npos);
  EXPECT_NE(message("[1]").find("f.json"), std::string::npos);
  // One option in two places would silently take the later one's value.
  EXPECT_EQ(message(R"({"grid": {"lr": [0.1, 0.2]},
                        "random": {"samples": 2, "ranges": {"lr": {"uniform": [0, 1]}}}})"),
            "f.json: random.ranges.lr: also set by grid (give each option one place)");
  EXPECT_EQ(message(R"({"variants": [{"name": "a"}, {"name": "b", "set": {"loss": "hinge"}}],
                        "grid": {"loss": ["listmle", "diffmat"]}})"),
            "f.json: grid.loss: also set by variants (give each option one place)");
  EXPECT_EQ(message(R"({"variants": [{"name": "a", "set": {"lr": 0.1}},
                                     {"name": "b", "set": {"lr": 0.2}}],
                        "grid": {"loss": ["listmle"]}})"),
            "no error");  // variants may each set the same option: they are one axis
}

}  // namespace
}  // namespace graphcost::sweep
