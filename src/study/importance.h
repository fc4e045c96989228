// Which parameters mattered: PED-ANOVA (Watanabe, Bansal and Hutter 2023, "PED-ANOVA:
// Efficiently Quantifying Hyperparameter Importance in Arbitrary Subspaces", IJCAI;
// arXiv:2304.10255).
//
// A parameter's importance is the Pearson divergence between its marginal distribution among
// the top `target_quantile` of the complete trials and among all complete trials:
// sum_x p_all(x) (p_top(x) / p_all(x) - 1)^2. Both marginals are one-dimensional Parzen
// estimators (study/parzen.h, prior weight 1) over the trials where the parameter was active,
// evaluated on its values (categorical, or a step grid of at most 50 values) or on 50 evenly
// spaced points of its internal range (continuous), and normalised over those points.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "study/space.h"
#include "study/trial.h"

namespace graphcost::study {

struct ImportanceOptions {
  double target_quantile = 0.1;  // the top fraction of complete trials ("good", at least 1)
  bool normalize = true;         // scale the importances to sum to 1 (when any is above 0)
};

// (key, importance) per parameter, most important first (ties in file order). Needs two complete
// trials with finite values; with fewer, every importance is 0. A parameter active in fewer
// than two of them gets 0.
std::vector<std::pair<std::string, double>> parameter_importance(
    const SearchSpace& space, const std::vector<TrialRecord>& trials, bool maximize,
    const ImportanceOptions& options = {});

}  // namespace graphcost::study
