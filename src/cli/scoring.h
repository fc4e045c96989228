// The flags eval and predict share for choosing what scores; the scoring itself is the
// inference layer's (infer/scoring.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "infer/scoring.h"

namespace graphcost::cli {

// The inference layer's names, for code written against cli::: they moved to graphcost::infer.
using infer::apply_run_pruning;
using infer::check_runs_kind;
using infer::kAutoAnchors;
using infer::kRunPruning;
using infer::load_run;
using infer::load_runs;
using infer::Run;
using infer::score_collection;
using infer::Scorer;

// The options eval and predict share: --model (repeat it for an ensemble), --ensemble, --tta
// and --anchors. Returns the --model option.
CLI::Option* add_run_options(CLI::App* cmd, std::vector<std::string>& run_dirs,
                             std::string& ensemble, int64_t& tta, int64_t& anchors);

}  // namespace graphcost::cli
