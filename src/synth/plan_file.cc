#include "synth/plan_file.h"

#include "core/atomic_file.h"
#include "core/error.h"
#include "synth/model_programs.h"

namespace graphcost::synth {

namespace {

template <typename T>
void read_range(const nlohmann::json& entry, const std::string& where, const std::string& key,
                T& low, T& high) {
  const nlohmann::json& value = entry.at(key);
  check_data(value.is_array() && value.size() == 2, where, key, "expected [min, max]");
  low = value[0].get<T>();
  high = value[1].get<T>();
  check_data(low <= high, where, key, "min is above max");
}

CollectionPlan plan_from_json(const nlohmann::json& entry, const std::string& where) {
  check_data(entry.is_object(), where, "", "each collection must be a JSON object");
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    const std::string& k = it.key();
    check_data(k == "collection" || k == "files" || k == "nodes" || k == "configs" ||
                   k == "configurable_fraction" || k == "max_layout_cells" ||
                   k == "random_search",
               where, k,
               "unknown key (valid: collection, files, nodes, configs, configurable_fraction, "
               "max_layout_cells, random_search)");
  }
  for (const char* required : {"collection", "files", "nodes", "configs"})
    check_data(entry.contains(required), where, required, "missing");
  CollectionPlan plan;
  plan.id = data::CollectionId::parse(entry.at("collection").get<std::string>());
  const std::string here = where + " (" + plan.id.str() + ")";
  const nlohmann::json& files = entry.at("files");
  check_data(files.is_array() && files.size() == 3, here, "files",
             "expected [train, valid, test] file counts");
  for (int s = 0; s < 3; ++s) {
    plan.files[s] = files[s].get<int64_t>();
    check_data(plan.files[s] >= 0, here, "files", "counts must be >= 0");
  }
  read_range(entry, here, "nodes", plan.min_nodes, plan.max_nodes);
  check_data(plan.min_nodes >= 1, here, "nodes", "must be at least 1");
  read_range(entry, here, "configs", plan.min_configs, plan.max_configs);
  check_data(plan.min_configs >= 1, here, "configs", "must be at least 1");
  if (plan.id.kind == data::ConfigKind::Layout) {
    check_data(entry.contains("configurable_fraction"), here, "configurable_fraction",
               "missing (needed for a layout collection)");
    read_range(entry, here, "configurable_fraction", plan.min_fraction, plan.max_fraction);
    check_data(plan.min_fraction > 0 && plan.max_fraction <= 1, here, "configurable_fraction",
               "must lie in (0, 1]");
    check_data(plan.min_nodes >= kMinLayoutProgramNodes, here, "nodes",
               "a layout program needs at least " + std::to_string(kMinLayoutProgramNodes) +
                   " nodes");
  }
  if (entry.contains("random_search")) {
    check_data(plan.id.kind == data::ConfigKind::Layout && plan.id.search == "random", here,
               "random_search", "only a layout random collection has one");
    const std::string search = entry.at("random_search").get<std::string>();
    check_data(search == "independent" || search == "tied", here, "random_search",
               "unknown search \"" + search + "\" (valid: independent, tied)");
    plan.tied_random_search = search == "tied";
  }
  if (entry.contains("max_layout_cells")) {
    plan.max_layout_cells = entry.at("max_layout_cells").get<int64_t>();
    check_data(plan.max_layout_cells >= 1, here, "max_layout_cells", "must be at least 1");
  }
  return plan;
}

}  // namespace

std::vector<CollectionPlan> collection_plans_from_json(const nlohmann::json& j,
                                                       const std::string& where) {
  check_data(j.is_array() && !j.empty(), where, "", "expected a non-empty array of collections");
  std::vector<CollectionPlan> plans;
  for (const nlohmann::json& entry : j) {
    try {
      plans.push_back(plan_from_json(entry, where));
    } catch (const nlohmann::json::exception& e) {
      throw Error(where, "", std::string("wrong type: ") + e.what());
    }
    for (size_t i = 0; i + 1 < plans.size(); ++i)
      check_data(!(plans[i].id == plans.back().id), where, plans.back().id.str(),
                 "collection listed twice");
  }
  return plans;
}

std::vector<CollectionPlan> read_collection_plans(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, "", std::string("not valid JSON: ") + e.what());
  }
  return collection_plans_from_json(j, path);
}

}  // namespace graphcost::synth
