#include "stack/training_graphs.h"

#include <set>

#include "core/error.h"
#include "data/dedup.h"
#include "io/collection_readers.h"

namespace graphcost::stack {

std::optional<data::DataOptions> training_source(const run::RunConfig& config) {
  if (!config.options.contains("data")) return std::nullopt;
  data::DataOptions source = config.data;
  if (source.collection.empty()) source.collection = data::DataOptions{}.collection;
  return source;
}

std::vector<std::string> graph_names(const data::DataOptions& source) {
  data::LoadOptions load = source.unpruned_load_options();
  load.merge_duplicates = false;  // names only: no need to compare configurations
  std::vector<std::string> names;
  io::for_each_graph(source.data, data::CollectionId::parse(source.collection), source.split, load,
                     2, [&](const data::Graph& graph, const data::ConfigView&, const std::string&) {
                       names.push_back(graph.name);
                     });
  return names;
}

std::vector<std::string> shared_graphs(const std::vector<std::string>& trained,
                                       const std::vector<std::string>& fitted) {
  const std::set<std::string> seen(trained.begin(), trained.end());
  std::vector<std::string> shared;
  for (const std::string& name : fitted)
    if (seen.count(name)) shared.push_back(name);
  return shared;
}

std::map<std::string, std::unordered_set<std::string>> training_configs(
    const data::DataOptions& source, const std::set<std::string>& names) {
  data::LoadOptions load = source.unpruned_load_options();
  load.merge_duplicates = false;  // every configuration the member may have trained on
  std::map<std::string, std::unordered_set<std::string>> out;
  io::for_each_graph(
      source.data, data::CollectionId::parse(source.collection), source.split, load, 2,
      [&](const data::Graph& graph, const data::ConfigView& configs, const std::string&) {
        if (!names.count(graph.name)) return;
        std::unordered_set<std::string>& set = out[graph.name];
        for (int64_t j = 0; j < configs.count; ++j) set.emplace(data::config_bytes(configs, j));
      });
  return out;
}

void check_out_of_sample(const std::string& member_dir, const std::string& graph,
                         const std::unordered_set<std::string>& trained,
                         const data::ConfigView& fitted) {
  int64_t seen = 0;
  for (int64_t j = 0; j < fitted.count; ++j)
    seen += trained.count(std::string(data::config_bytes(fitted, j)));
  check_data(seen == 0, member_dir, "",
             "trained on graph " + graph + ", which the stack is fitted on (" +
                 std::to_string(seen) + " of its " + std::to_string(fitted.count) +
                 " configurations there are among the member's training ones: its scores there "
                 "are in-sample); fit the stack on graphs or configurations no member trained on "
                 "(e.g. --split valid)");
}

}  // namespace graphcost::stack
