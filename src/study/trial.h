// One trial of a study as samplers, pruners and storage see it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace graphcost::study {

enum class TrialState { Running, Complete, Pruned, Failed };

// "running", "complete", "pruned", "failed" (the storage's spelling); parse_trial_state throws an
// Error for any other text.
const char* trial_state_name(TrialState state);
TrialState parse_trial_state(const std::string& name);

struct TrialRecord {
  int64_t number = 0;  // 0, 1, ... within the study
  TrialState state = TrialState::Running;
  nlohmann::json params = nlohmann::json::object();  // key -> value
  std::optional<double> value;                       // the objective, when complete
  std::map<int64_t, double> intermediate;            // step -> reported value
  // Filled in by the storage:
  std::string run_dir;
  std::string worker;
  std::string message;                // why it failed or was pruned, "" if nothing to say
  double started = 0;                 // Unix seconds
  double finished = 0;                // Unix seconds, 0 while running
  double heartbeat = 0;               // Unix seconds of the last sign of life
  std::optional<int64_t> grid_index;  // the grid point it runs (grid sampler only)
  bool retried = false;               // failed, and its grid point handed to a later trial
};

}  // namespace graphcost::study
