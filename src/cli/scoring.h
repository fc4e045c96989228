// The flags eval and predict share for choosing what scores; the scoring itself is the
// inference layer's (infer/scoring.h). Needs no LibTorch (graphcost_cli_base).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/data_options.h"
#include "infer/scoring_options.h"

namespace graphcost::cli {

// The options eval and predict share: --model (repeat it for an ensemble) and a flag per row of
// the scoring options' table (infer/scoring_options.h: --ensemble, --mc-samples, --seed,
// --slate-size, --tta, --anchors), each value checked by its row as it is parsed. The options a
// command words its own way are returned.
struct ScoringFlags {
  CLI::Option* model;
  CLI::Option* mc_samples;
  CLI::Option* seed;
};
ScoringFlags add_scoring_options(CLI::App* cmd, std::vector<std::string>& run_dirs,
                                 infer::ScoringOptions& scoring);

// What every rank of a distributed eval or predict must agree on, as text for
// check_same_scoring_start: every scoring option (by its table's JSON keys), the collection, split
// and pruning of the data, and the command's own entries (`command`). Not paths or threads: runs
// and data are compared by their contents.
std::string scoring_start_text(const infer::ScoringOptions& scoring, const data::DataOptions& source,
                               const nlohmann::json& command = nlohmann::json::object());

}  // namespace graphcost::cli
