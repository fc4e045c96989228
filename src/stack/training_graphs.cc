#include "stack/training_graphs.h"

#include <set>

#include "core/error.h"
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

void check_out_of_sample(const std::string& member_dir, const std::vector<std::string>& trained,
                         const std::vector<std::string>& fitted) {
  const std::set<std::string> seen(trained.begin(), trained.end());
  for (const std::string& name : fitted) {
    check_data(!seen.count(name), member_dir, "",
               "trained on graph " + name +
                   ", which the stack is fitted on (its scores there are in-sample); fit the "
                   "stack on graphs no member trained on (e.g. --split valid)");
  }
}

}  // namespace graphcost::stack
