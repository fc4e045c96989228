// The report of a set of campaigns (one per seed): reach figures, curves, JSON and SVG.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tune/campaign.h"
#include "tune/reach.h"

namespace graphcost::tune {

struct SeedCampaign {
  uint64_t seed = 0;
  CampaignResult result;
};

// The optimum the reach figures are measured against: the best recorded non-failed time when
// the measurements replayed the records, else the best time any seed measured (NaN if none).
double campaign_optimum(const SearchSpace& space, const std::vector<SeedCampaign>& runs,
                        bool replayed);

// One JSON object: reach_1pct, reach_5pct, reach_10pct (mean measurements over the seeds that
// got there, null when none did), reach_*_seeds (how many did), curve (mean best-so-far per
// measurement), and per seed its curve, failures and best configuration. settings is copied in.
nlohmann::json campaign_report(const SearchSpace& space, const std::vector<SeedCampaign>& runs,
                               double optimum, const nlohmann::json& settings);

// The mean best-so-far curve (relative to the optimum when it is known) as a standalone SVG.
std::string campaign_curve_svg(const nlohmann::json& report);

}  // namespace graphcost::tune
