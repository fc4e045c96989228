#include "sweep/spec.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "core/error.h"
#include "core/random.h"
#include "data/collection.h"
#include "train/options.h"

namespace graphcost::sweep {

namespace {

using nlohmann::json;

// One axis of the product: a list of (name part, settings) alternatives.
struct Alternative {
  std::string name;
  json settings = json::object();
};
using Axis = std::vector<Alternative>;

std::string short_value(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value.get<double>());
    return text;
  }
  return value.dump();
}

Axis variant_axis(const json& spec, const std::string& where) {
  if (!spec.contains("variants")) return {Alternative{}};
  const json& variants = spec["variants"];
  check_data(variants.is_array() && !variants.empty(), where, "variants",
             "expected a non-empty array of {\"name\": ..., \"set\": {...}}");
  Axis axis;
  for (const json& v : variants) {
    check_data(v.is_object() && v.contains("name") && v["name"].is_string(), where, "variants",
               "every variant needs a \"name\" string");
    Alternative a{v["name"].get<std::string>()};
    if (v.contains("set")) {
      check_data(v["set"].is_object(), where, "variants." + a.name + ".set",
                 "expected an object of option -> value");
      a.settings = v["set"];
    }
    for (const auto& [key, _] : v.items()) {
      check_data(key == "name" || key == "set", where, "variants." + a.name,
                 "unknown key \"" + key + "\" (valid: name, set)");
    }
    axis.push_back(a);
  }
  return axis;
}

std::vector<Axis> grid_axes(const json& spec, const std::string& where) {
  std::vector<Axis> axes;
  if (!spec.contains("grid")) return axes;
  const json& grid = spec["grid"];
  check_data(grid.is_object(), where, "grid", "expected an object of option -> list of values");
  for (const auto& [key, values] : grid.items()) {
    check_data(values.is_array() && !values.empty(), where, "grid." + key,
               "expected a non-empty list of values");
    Axis axis;
    for (const json& value : values) {
      Alternative a{key + "=" + short_value(value)};
      a.settings[key] = value;
      axis.push_back(a);
    }
    axes.push_back(axis);
  }
  return axes;
}

json draw(const json& range, const std::string& key, Random& random, const std::string& where) {
  check_data(range.is_object() && range.size() == 1, where, "random.ranges." + key,
             "expected one of {\"uniform\": [a, b]}, {\"log_uniform\": [a, b]}, "
             "{\"int\": [a, b]}, {\"choice\": [...]}");
  const std::string kind = range.begin().key();
  const json& bounds = range.begin().value();
  if (kind == "choice") {
    check_data(bounds.is_array() && !bounds.empty(), where, "random.ranges." + key,
               "choice needs a non-empty list");
    return bounds[random.below(bounds.size())];
  }
  check_data(bounds.is_array() && bounds.size() == 2 && bounds[0].is_number() &&
                 bounds[1].is_number() && bounds[0].get<double>() <= bounds[1].get<double>(),
             where, "random.ranges." + key, kind + " needs [low, high] with low <= high");
  const double low = bounds[0].get<double>(), high = bounds[1].get<double>();
  if (kind == "uniform") return low + (high - low) * random.uniform();
  if (kind == "log_uniform") {
    check_data(low > 0, where, "random.ranges." + key, "log_uniform needs low > 0");
    return std::exp(std::log(low) + (std::log(high) - std::log(low)) * random.uniform());
  }
  if (kind == "int") {
    const auto lo = static_cast<int64_t>(std::ceil(low)), hi = static_cast<int64_t>(std::floor(high));
    check_data(lo <= hi, where, "random.ranges." + key, "int range holds no integer");
    return lo + static_cast<int64_t>(random.below(static_cast<uint64_t>(hi - lo + 1)));
  }
  throw Error(where, "random.ranges." + key,
              "unknown range \"" + kind + "\" (valid: uniform, log_uniform, int, choice)");
}

Axis random_axis(const json& spec, uint64_t seed, const std::string& where) {
  if (!spec.contains("random")) return {Alternative{}};
  const json& r = spec["random"];
  check_data(r.is_object() && r.contains("samples") && r["samples"].is_number_integer() &&
                 r["samples"].get<int64_t>() > 0,
             where, "random.samples", "expected a positive integer");
  check_data(r.contains("ranges") && r["ranges"].is_object() && !r["ranges"].empty(), where,
             "random.ranges", "expected an object of option -> range");
  for (const auto& [key, _] : r.items()) {
    check_data(key == "samples" || key == "ranges", where, "random",
               "unknown key \"" + key + "\" (valid: samples, ranges)");
  }
  Random random(random_stream(seed, 0x5eed));
  Axis axis;
  for (int64_t s = 0; s < r["samples"].get<int64_t>(); ++s) {
    Alternative a;
    for (const auto& [key, range] : r["ranges"].items()) {
      const json value = draw(range, key, random, where);
      a.settings[key] = value;
      a.name += (a.name.empty() ? "" : " ") + key + "=" + short_value(value);
    }
    axis.push_back(a);
  }
  return axis;
}

// An option set by two of variants, grid and random would take the value of the later one in
// every combination while the combination's name showed both: refuse it.
void check_one_axis_per_option(const json& spec, const std::string& where) {
  std::map<std::string, std::string> owner;  // option -> the first place that sets it
  auto claim = [&](const std::string& key, const std::string& place) {
    const auto [it, fresh] = owner.emplace(key, place);
    check_data(fresh || it->second == place, where, place + "." + key,
               "also set by " + it->second + " (give each option one place)");
  };
  if (spec.contains("variants")) {
    for (const json& v : spec["variants"]) {
      if (v.contains("set")) {
        for (const auto& [key, _] : v["set"].items()) claim(key, "variants");
      }
    }
  }
  if (spec.contains("grid")) {
    for (const auto& [key, _] : spec["grid"].items()) claim(key, "grid");
  }
  if (spec.contains("random")) {
    for (const auto& [key, _] : spec["random"]["ranges"].items()) claim(key, "random.ranges");
  }
}

}  // namespace

void set_dotted(json& options, const std::string& dotted_key, const json& value) {
  json* node = &options;
  size_t begin = 0;
  for (size_t dot; (dot = dotted_key.find('.', begin)) != std::string::npos; begin = dot + 1) {
    const std::string part = dotted_key.substr(begin, dot - begin);
    if (!node->contains(part) || !(*node)[part].is_object()) (*node)[part] = json::object();
    node = &(*node)[part];
  }
  (*node)[dotted_key.substr(begin)] = value;
}

std::vector<Combination> expand_sweep(const json& spec, uint64_t seed, const std::string& where) {
  check_data(spec.is_object(), where, "", "a sweep file must be a JSON object");
  for (const auto& [key, _] : spec.items()) {
    check_data(key == "base" || key == "variants" || key == "grid" || key == "random", where, key,
               "unknown key (valid: base, variants, grid, random)");
  }
  const json base = spec.contains("base") ? spec["base"] : json::object();
  check_data(base.is_object(), where, "base", "expected an object of training options");
  std::vector<Axis> axes = {variant_axis(spec, where)};
  for (Axis& axis : grid_axes(spec, where)) axes.push_back(std::move(axis));
  axes.push_back(random_axis(spec, seed, where));
  check_one_axis_per_option(spec, where);

  std::vector<Combination> out;
  std::vector<size_t> at(axes.size(), 0);
  while (true) {
    Combination c;
    c.settings = json::object();
    c.options = base;
    for (size_t a = 0; a < axes.size(); ++a) {
      const Alternative& alt = axes[a][at[a]];
      if (!alt.name.empty()) c.name += (c.name.empty() ? "" : " ") + alt.name;
      for (const auto& [key, value] : alt.settings.items()) {
        c.settings[key] = value;
        set_dotted(c.options, key, value);
      }
    }
    if (c.name.empty()) c.name = "base";
    char id[16];
    std::snprintf(id, sizeof id, "c%03zu", out.size());
    c.id = id;
    out.push_back(std::move(c));
    // Odometer over the axes, the last one fastest.
    size_t a = axes.size();
    while (a > 0 && ++at[a - 1] == axes[a - 1].size()) at[--a] = 0;
    if (a == 0) break;
  }
  return out;
}

void check_combinations(const std::vector<Combination>& combinations,
                        const std::string& collection, const std::string& where) {
  const data::ConfigKind kind = data::CollectionId::parse(collection).kind;
  for (const Combination& combination : combinations) {
    train::TrainOptions options;
    try {
      train::from_json(combination.options, options);
      // What the sweep gives every run on its command line.
      options.collection = collection;
      options.model.kind = kind;
      train::check_train_options(options);
    } catch (const Error& e) {
      throw Error(where, combination.id + " (" + combination.name + ")", e.what());
    }
  }
}

}  // namespace graphcost::sweep
