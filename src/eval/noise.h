// The noise of measured records (graphcost noise): per graph, how far repeated measurements of
// the same configurations agree, the Kendall tau that bounds any ranker's against one
// measurement (eval/repeats.h), and, given a submission, where a model stands on them. The
// result is one JSON report (what `graphcost noise --json` prints); the CLI prints it as text.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "data/collection.h"
#include "data/data_options.h"
#include "eval/repeats.h"

namespace graphcost::eval {

struct NoiseOptions {
  std::string path;  // the measured records, not deduplicated: a .npz or a folder of them
  // collection (empty: the kind from the data; with a submission, the one collection it ranks);
  // with a submission, data and split: the split it ranks
  data::DataOptions source = data::command_data_options("valid");
  int64_t min_gap = 1;  // a repeat at least this many records after the first measurement
  int64_t max_gap = std::numeric_limits<int64_t>::max();  // and at most this many
  double fast = 1.01;      // the fast group: both measurements below fast x the graph's fastest
  std::string submission;  // a layout submission CSV; empty: none
};

// One graph of the measured records: its repeat pairs, the feature bytes of each repeated
// configuration (to find it in a split) and the fast group.
struct RepeatedGraph {
  std::string name;
  std::string source;
  data::ConfigKind kind = data::ConfigKind::Layout;
  int64_t records = 0;
  int64_t distinct = 0;
  double fastest = 0;  // the fastest successful runtime
  RepeatPairs pairs;
  std::vector<int64_t> fast;      // positions into pairs
  std::vector<std::string> keys;  // per pair, its configuration's feature bytes
  nlohmann::json model;           // filled when a submission ranks this graph
};

// The repeats of one graph's records (read from `source`): an Error naming source when the
// records have no runtimes.
RepeatedGraph repeated_graph(const data::Graph& graph, const data::ConfigView& configs,
                             const std::string& source, const NoiseOptions& options);

// {"count", "median_relative_difference", "repeat_tau", "bound"}; null where a figure is NaN.
nlohmann::json agreement_json(const Agreement& agreement);

// The model's tau against each measurement on the pairs at `positions` (predicted: a cost per
// pair), with those pairs' own agreement: agreement_json plus "model_tau_first" and
// "model_tau_second" (null where undefined).
nlohmann::json model_agreement_json(const RepeatPairs& pairs, const std::vector<double>& predicted,
                                    const std::vector<int64_t>& positions);

// The figures noise_means averages, as (group, name) in a graph's report, in report order; the
// model's are under "model" and averaged when any graph has them.
const std::vector<std::pair<std::string, std::string>>& noise_mean_figures();
const std::vector<std::pair<std::string, std::string>>& noise_model_mean_figures();

// Per figure, its mean over the graphs (their reports) where it is defined (not null) and how
// many those are, as {group: {name: {"mean", "graphs"}}} ({"model": {group: ...}} for the
// model's figures); the mean is null where no graph defines it.
nlohmann::json noise_means(const nlohmann::json& graphs);

// The whole report: {"min_gap", "fast", "max_gap" (when bounded), "graphs": [{"graph", "source",
// "kind", "records", "distinct", "fastest", "all", "fast", "model" (with a submission)}, ...],
// "mean" (with more than one graph)}. Errors name the file and the problem (no runtimes, no
// graphs, a submission that ranks none of them).
nlohmann::json noise_report(const NoiseOptions& options);

}  // namespace graphcost::eval
