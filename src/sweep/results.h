// A sweep's results: each run's final validation metrics, and per combination the mean and
// standard deviation over its seeds and, against a named baseline combination, the paired
// difference by seed with its 95% interval, as Markdown, CSV and HTML tables.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/paired.h"
#include "sweep/spec.h"

namespace graphcost::sweep {

struct RunResult {
  std::string combination;  // Combination::id
  uint64_t seed = 0;
  bool done = false;   // finished with a final validation
  bool failed = false;
  double seconds = 0;  // wall time of training (summed over resumed parts)
  nlohmann::json metrics = nlohmann::json::object();  // metric name -> value
};

// The metrics of the last line of a metrics.jsonl text that carries validation metrics
// (kendall_tau, opa, top1_error, top5_error, top10_error, tile_score); empty when none.
nlohmann::json final_validation(const std::string& metrics_jsonl);

struct Stat {
  double mean = 0, std = 0;  // std: sample standard deviation (n - 1); 0 for one value
  int64_t count = 0;
};

struct Row {
  std::string id, name;
  int64_t done = 0, failed = 0, pending = 0;
  std::vector<Stat> metrics;  // in the order of Summary::metric_names
  Stat seconds;
  // With a baseline: per metric, this row minus the baseline row, paired by seed over the seeds
  // both finished, with its 95% t interval. Empty without a baseline and for the baseline row.
  std::vector<eval::PairedComparison> paired;
};

struct Summary {
  std::vector<std::string> metric_names;
  std::vector<Row> rows;  // in combination order
  std::string baseline;   // the baseline row's id; empty when none was named
};

Stat statistics(const std::vector<double>& values);

// Groups results by combination; metric columns are those any finished run reported, in a
// fixed order (kendall_tau, opa, top1_error, top5_error, top10_error, tile_score). baseline,
// when not empty, names a combination by id ("c0") or name; every other row then gets its
// paired differences against it. An unknown baseline is an Error listing the ids.
Summary summarise(const std::vector<Combination>& combinations,
                  const std::vector<RunResult>& results, const std::string& baseline = "");

std::string to_markdown(const Summary& summary);
std::string to_csv(const Summary& summary);
std::string to_html(const Summary& summary, const std::string& title);

}  // namespace graphcost::sweep
