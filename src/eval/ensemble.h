// Ensembles: several models' scores for the same configurations combined into one score per
// configuration. Scores are predicted costs (lower = faster) on scales that differ between
// models, so they are combined per graph after standardising, or by rank.
#pragma once

#include <string>
#include <vector>

namespace graphcost::eval {

// The valid combination methods: "mean" (mean of per-graph standardised scores) and "rank"
// (mean reciprocal rank). Anything else is an Error listing them.
void check_ensemble_method(const std::string& method);

// (s - mean) / standard deviation over one graph's scores; all zeros when they are constant.
std::vector<double> standardise(const std::vector<double>& scores);

// Rank of each score, 1 for the lowest (fastest); tied scores share the mean of their ranks.
std::vector<double> ascending_ranks(const std::vector<double>& scores);

// Combines per_model[m][i] (model m's score of configuration i; every model the same length)
// into one cost per configuration. "mean": mean over models of standardise(per_model[m]);
// "rank": minus the mean over models of 1 / ascending_ranks(per_model[m]), so a configuration
// that several models put near the top wins. One model: its scores unchanged, whatever the
// method. No models, or models of different lengths, is an Error.
std::vector<double> combine_scores(const std::vector<std::vector<double>>& per_model,
                                   const std::string& method);

}  // namespace graphcost::eval
