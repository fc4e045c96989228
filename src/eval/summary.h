// Per-graph metric tables for a collection: the metrics of each graph and their means, as JSON
// or as a text table for a terminal.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/configs.h"

namespace graphcost::eval {

// One graph's predicted costs and measured runtimes, one entry per configuration.
struct GraphScores {
  std::string name;
  std::vector<double> predicted;
  std::vector<double> measured;
};

// rows[g][m] is metric metric_names[m] of graph graph_names[g]; NaN where undefined.
// means[m] averages the non-NaN values of column m (NaN when there are none); counts[m] is how
// many values that is.
struct MetricTable {
  std::vector<std::string> metric_names;
  std::vector<std::string> graph_names;
  std::vector<std::vector<double>> rows;
  std::vector<double> means;
  std::vector<int64_t> counts;
};

// The metrics reported for a kind: layout {kendall_tau, opa, top1_error, top10_error}; tile {top1_error, top5_error,
// top10_error, tile_score, kendall_tau}.
std::vector<std::string> metric_names(data::ConfigKind kind);
// Computes the kind's metrics for every graph and their means. A graph whose predicted and
// measured sizes differ is an Error naming it.
MetricTable evaluate(data::ConfigKind kind, const std::vector<GraphScores>& graphs);
// Kendall tau-b (the field's metric) leaves pairs with equal predicted scores out of its count, so
// scores with many ties read higher than the strict ranking a submission makes of them (a model
// whose predictions collapse to a few values can gain 0.05). Returns a one-line warning naming
// the graph when over 1% of its configuration pairs have equal predicted scores, else "".
std::string tied_scores_warning(const GraphScores& graph);
// Sets table.means and table.counts from table.rows: per metric, the mean of the non-NaN values
// (NaN when none) and their number.
void fill_means(MetricTable& table);
// A metric value as the tables print it: "%.4f", or "nan".
std::string format_metric(double value);
// {"graphs": [{"name": ..., <metric>: value, ...}, ...], "graph_count": n, <metric>: mean, ...};
// NaN becomes null.
nlohmann::json to_json(const MetricTable& table);
// An aligned text table: one row per graph, then a "mean" row; NaN prints as "nan".
std::string format_table(const MetricTable& table);

}  // namespace graphcost::eval
