// A study as people read it: a one-screen summary (`study show`), one record per trial
// (`study export`, JSON or CSV) and an offline HTML page (`study report`) with the optimisation
// history, the intermediate values with pruned trials marked, parallel coordinates and the
// parameters' importance (PED-ANOVA, study/importance.h). Plain C++: no LibTorch.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "study/space.h"
#include "study/trial.h"

namespace graphcost::study {

// What a report needs of a study besides its trials.
struct StudySummary {
  std::string name;
  std::string objective;  // the metric
  bool maximize = true;
  SearchSpace space;
};

// The best complete trial (nullptr when none).
const TrialRecord* best_trial(const std::vector<TrialRecord>& trials, bool maximize);

// Counts by state, the best trial's number, value, parameters and run folder, as text lines.
std::string summary_text(const StudySummary& study, const std::vector<TrialRecord>& trials);

// One JSON object per trial: number, state, params, value, intermediate values, run_dir, worker,
// started, finished, message.
nlohmann::json trials_json(const std::vector<TrialRecord>& trials);

// CSV: number,state,value,run_dir,<one column per space parameter, in space order>,message.
std::string trials_csv(const StudySummary& study, const std::vector<TrialRecord>& trials);

// The HTML page.
std::string study_report_html(const StudySummary& study, const std::vector<TrialRecord>& trials);

}  // namespace graphcost::study
