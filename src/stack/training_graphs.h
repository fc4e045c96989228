// Which graphs a stack member trained on, from what its config.json records (the data options
// of its training: data, collection, split, exclude, skip_invalid), so that a stack is never
// fitted on a member's in-sample scores.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "data/configs.h"
#include "data/data_options.h"
#include "run/run_config.h"

namespace graphcost::stack {

// The data a run trained on, as its config.json records it (read and checked by the run folder:
// run/run_folder.h); nullopt when it records no "data" (a run written before config.json held it).
std::optional<data::DataOptions> training_source(const run::RunConfig& config);

// The names of the graphs a training source holds (every graph a run trained on: the source
// read as training read it, pruning aside, which changes no name).
std::vector<std::string> graph_names(const data::DataOptions& source);

// The graphs of `fitted` that are also in `trained` (a member trained on them), in fitted's order.
std::vector<std::string> shared_graphs(const std::vector<std::string>& trained,
                                       const std::vector<std::string>& fitted);

// The feature bytes (data::config_bytes) of every configuration of the graphs named in `names`
// that a training source holds, by graph name: what a member trained on where it shares a graph
// with the stack (one program's configurations split for training and fitting).
std::map<std::string, std::unordered_set<std::string>> training_configs(
    const data::DataOptions& source, const std::set<std::string>& names);

// Refuses in-sample stacking on a graph that a member trained on and the stack is fitted on: an
// Error "MEMBER: trained on graph NAME, which the stack is fitted on (K of its N configurations
// there are among the member's training ones: its scores there are in-sample); ..." when any of
// the fitted configurations is in `trained` (by feature bytes). Configurations the member never
// saw (`graphcost split` of one file into train and valid) are out of sample: no Error.
void check_out_of_sample(const std::string& member_dir, const std::string& graph,
                         const std::unordered_set<std::string>& trained,
                         const data::ConfigView& fitted);

}  // namespace graphcost::stack
