// What a sweep runs: the combinations of training options named by a sweep file (a JSON object
// of base options, named variants, a grid and random ranges; see docs/sweep.md).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace graphcost::sweep {

// One combination: a stable id ("c000"), a readable name of what it sets, the settings as
// dotted keys ("model.attention" -> true) and the full training options it trains with.
struct Combination {
  std::string id;
  std::string name;
  nlohmann::json settings;  // object: dotted key -> value
  nlohmann::json options;   // base options with the settings applied (nested objects)
};

// Sets a dotted key ("lr", "model.hidden") in a JSON object, creating nested objects.
void set_dotted(nlohmann::json& options, const std::string& dotted_key,
                const nlohmann::json& value);

// Expands a sweep file: variants x grid (cartesian, keys in file order) x random samples drawn
// with the seed ("samples" draws from "ranges": uniform, log_uniform, int, choice). A missing
// section contributes one empty element. Errors name `where` (the file) and the bad key.
std::vector<Combination> expand_sweep(const nlohmann::json& spec, uint64_t seed,
                                      const std::string& where);

// The pre-check of a sweep: reads and checks every combination's options as `graphcost train`
// will for a run on `collection` (train::check_train_options: the data, training and model
// options, the model's kind taken from the collection), before any run starts. The first bad
// one is an Error "<where>: <id> (<name>): <train|model> options: <key>: <problem>".
void check_combinations(const std::vector<Combination>& combinations,
                        const std::string& collection, const std::string& where);

}  // namespace graphcost::sweep
