// The run report: one self-contained offline HTML page (inline SVG, no scripts or fonts from
// elsewhere) showing a training run's curves, validation scatter plots and configuration.
#pragma once

#include <string>

namespace graphcost::eval {

// Builds the page from run_dir/metrics.jsonl (required: one JSON object per line with a numeric
// "iteration"; every other numeric key becomes a curve), run_dir/valid_predictions.jsonl
// (optional: {"graph", "predicted", "measured"} per line; the first few become scatter plots)
// and run_dir/config.json (optional, shown verbatim). A missing or malformed metrics.jsonl is
// an Error naming the file and line.
std::string render_report(const std::string& run_dir);
// Writes render_report(run_dir) to run_dir/report.html atomically.
void write_report(const std::string& run_dir);

}  // namespace graphcost::eval
