// A stacked run (graphcost stack, docs/stack.md): a meta-learner over its members' scores. A
// member is a trained run (neural or XGBoost, loaded by load_run) or, for Kernel Tuner data, the
// ranking by other devices' measured times (stack/other_devices.h). Loading, scoring and fitting
// a stack; the meta-learners themselves are plain C++ (src/stack).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/data_options.h"
#include "infer/scoring.h"
#include "stack/meta_learner.h"
#include "stack/other_devices.h"

namespace graphcost::infer {

struct StackModel {
  std::vector<TrainedModel> members;              // the member runs, in config.json's order
  std::vector<std::string> member_paths;  // as config.json stores them (relative to the stack)
  std::optional<stack::OtherDevices> other_devices;  // the last feature column when present
  stack::MetaLearner meta;
};

// Fills run.stack (and the run's collection and pruning) from a stacked run's config.json: the
// "stack" object, each member loaded by load_run (a path relative to run_dir is inside it),
// other_devices.json and meta.xgb where the stack has them. Errors name the file and key.
void load_stack(TrainedModel& run, const run::RunConfig& config, const std::string& run_dir);

// The stack's cost of each listed configuration of a graph from its member runs' scores of them
// (member_scores[m], in members' order): the features of stack/meta_learner.h, with the
// other-devices member's scores as the last column when the stack has it.
std::vector<double> stack_scores(const StackModel& stack,
                                 const std::vector<std::vector<double>>& member_scores,
                                 const std::string& graph_name, const data::ConfigView& configs,
                                 const std::vector<int64_t>& indices);

// What `graphcost stack` asks for.
struct StackOptions {
  std::vector<std::string> members;  // member run folders
  // Blending with refitted members: when given, one per member in the same order, the runs the
  // written stack scores with (the same settings trained on more data, e.g. the whole training
  // share where the members left out the fitting configurations); the meta-learner is fitted on
  // the members' scores, never theirs.
  std::vector<std::string> refit_members;
  bool other_devices = false;        // add the other devices' times as a member
  // The graphs the meta-learner is fitted on (split "valid" by default): never a member's
  // training graphs.
  data::DataOptions source = data::command_data_options("valid");
  int64_t max_configs_per_graph = 1000;  // a seeded sample per graph for fitting (0: all)
  stack::MetaOptions meta;
};

// A fitted stack, for the run folder's writer.
struct FittedStack {
  data::CollectionId id;
  int prune_hops = -1;
  std::string prune_seeds = "all";
  int64_t graphs = 0;  // graphs the meta-learner was fitted on
  std::vector<std::string> members;  // the runs the stack scores with (members or refit_members)
  std::optional<stack::OtherDevices> other_devices;
  stack::MetaLearner meta;
};

// Loads the members, refuses in-sample use (a member that trained on a graph the stack is fitted
// on, by the training data its config.json records), scores the fitting graphs with every member
// (ScoringOptions' defaults, as eval scores them), and fits the meta-learner by cross-fitting.
// Problems are Errors naming the member or the data.
FittedStack fit_stack(const StackOptions& options);

}  // namespace graphcost::infer
