#include "stack/run_writer.h"

#include <filesystem>

#include "core/atomic_file.h"

namespace graphcost::stack {

namespace fs = std::filesystem;

namespace {

// A member's folder as a stack stores it: relative to the stack when inside it, else absolute.
std::string stored_member_path(const std::string& stack_dir, const std::string& member) {
  const fs::path stack = fs::weakly_canonical(fs::absolute(stack_dir));
  const fs::path path = fs::weakly_canonical(fs::absolute(member));
  const fs::path relative = path.lexically_relative(stack);
  const bool inside = !relative.empty() && *relative.begin() != "..";
  return inside ? relative.string() : path.string();
}

}  // namespace

void write_run(const run::RunFolder& folder, const std::vector<std::string>& members,
               const data::DataOptions& source, const data::CollectionId& id,
               const MetaLearner& meta, const OtherDevices* other_devices,
               const nlohmann::json& settings) {
  meta.save_model(folder.meta_model_path());
  if (other_devices) {
    write_file_atomically(folder.other_devices_path(), other_devices->to_json().dump() + "\n");
  }
  nlohmann::json stored = nlohmann::json::array();
  for (const std::string& member : members) stored.push_back(stored_member_path(folder.dir(), member));
  nlohmann::json stacked = {{"members", stored}, {"other_devices", other_devices != nullptr}};
  for (const auto& [key, value] : settings.items()) stacked[key] = value;
  const nlohmann::json learner = meta.to_json();  // named: items() does not keep it alive
  for (const auto& [key, value] : learner.items()) stacked[key] = value;
  nlohmann::json config = run::trained_data_keys(source, id);
  config["prune_hops"] = source.prune_hops;
  config["prune_seeds"] = source.prune_seeds;
  config["stack"] = stacked;
  folder.write_config(run::ModelType::Stack, config);
}

}  // namespace graphcost::stack
