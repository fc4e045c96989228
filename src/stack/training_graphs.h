// Which graphs a stack member trained on, from what its config.json records (the data options
// of its training: data, collection, split, exclude, skip_invalid), so that a stack is never
// fitted on a member's in-sample scores.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/data_options.h"
#include "run/run_config.h"

namespace graphcost::stack {

// The data a run trained on, as its config.json records it (read and checked by the run folder:
// run/run_folder.h); nullopt when it records no "data" (a run written before config.json held it).
std::optional<data::DataOptions> training_source(const run::RunConfig& config);

// The names of the graphs a training source holds (every graph a run trained on: the source
// read as training read it, pruning aside, which changes no name).
std::vector<std::string> graph_names(const data::DataOptions& source);

// Refuses in-sample stacking: an Error "MEMBER: trained on graph NAME, which the stack is fitted
// on (its scores there are in-sample)" for the first graph of `fitted` that is in `trained`.
void check_out_of_sample(const std::string& member_dir, const std::vector<std::string>& trained,
                         const std::vector<std::string>& fitted);

}  // namespace graphcost::stack
