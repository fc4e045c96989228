#include "eval/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "core/error.h"
#include "eval/metrics.h"

namespace graphcost::eval {

namespace {

using Metric = std::function<double(const std::vector<double>&, const std::vector<double>&)>;

std::vector<Metric> metric_functions(data::ConfigKind kind) {
  auto top_k = [](int64_t k) {
    return [k](const std::vector<double>& p, const std::vector<double>& m) {
      return top_k_error(p, m, k);
    };
  };
  // Layout: the competition's tau, and the top-K errors that matter when a search takes the
  // model's best few configurations.
  if (kind == data::ConfigKind::Layout) return {kendall_tau, ordered_pair_accuracy, top_k(1), top_k(10)};
  // Tile also gets tau: over a full search space (Kernel Tuner records) the whole order matters.
  return {top_k(1), top_k(5), top_k(10), tile_score, kendall_tau};
}

nlohmann::json number_or_null(double value) {
  if (std::isnan(value)) return nullptr;
  return value;
}

}  // namespace

std::string format_metric(double value) {
  if (std::isnan(value)) return "nan";
  char text[32];
  std::snprintf(text, sizeof(text), "%.4f", value);
  return text;
}

void fill_means(MetricTable& table) {
  const size_t metric_count = table.metric_names.size();
  std::vector<double> sums(metric_count, 0.0);
  std::vector<int64_t> counts(metric_count, 0);
  for (const std::vector<double>& row : table.rows) {
    for (size_t m = 0; m < metric_count; ++m) {
      if (std::isnan(row[m])) continue;
      sums[m] += row[m];
      ++counts[m];
    }
  }
  table.means.clear();
  for (size_t m = 0; m < metric_count; ++m) {
    table.means.push_back(counts[m] == 0 ? std::numeric_limits<double>::quiet_NaN()
                                         : sums[m] / static_cast<double>(counts[m]));
  }
  table.counts = std::move(counts);
}

std::vector<std::string> metric_names(data::ConfigKind kind) {
  if (kind == data::ConfigKind::Layout) return {"kendall_tau", "opa", "top1_error", "top10_error"};
  return {"top1_error", "top5_error", "top10_error", "tile_score", "kendall_tau"};
}

MetricTable evaluate(data::ConfigKind kind, const std::vector<GraphScores>& graphs) {
  MetricTable table;
  table.metric_names = metric_names(kind);
  std::vector<Metric> metrics = metric_functions(kind);
  const size_t metric_count = metrics.size();
  for (const GraphScores& graph : graphs) {
    check_data(graph.predicted.size() == graph.measured.size(), graph.name, "predicted",
               std::to_string(graph.predicted.size()) + " scores for " +
                   std::to_string(graph.measured.size()) + " measured runtimes");
    std::vector<double> row(metric_count);
    for (size_t m = 0; m < metric_count; ++m) {
      // A graph with fewer than 2 configurations has no defined ranking metric; it counts as NaN
      // for every metric, tile ones included, so means cover the same graphs across kinds.
      row[m] = graph.predicted.size() < 2 ? std::numeric_limits<double>::quiet_NaN()
                                          : metrics[m](graph.predicted, graph.measured);
    }
    table.graph_names.push_back(graph.name);
    table.rows.push_back(std::move(row));
  }
  fill_means(table);
  return table;
}

std::string tied_scores_warning(const GraphScores& graph) {
  if (graph.predicted.size() < 2 || graph.predicted.size() != graph.measured.size()) return "";
  const PairCounts counts = count_pairs(graph.predicted, graph.measured);
  const double share = static_cast<double>(counts.tied_predicted) / static_cast<double>(counts.pairs);
  if (share <= 0.01) return "";
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.1f%%", 100.0 * share);
  return graph.name + ": " + percent +
         " of configuration pairs have equal predicted scores; Kendall tau-b leaves them out, "
         "which flatters these scores (a submission ranks strictly: predict then score breaks "
         "the ties)";
}

nlohmann::json to_json(const MetricTable& table) {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json graphs = nlohmann::json::array();
  for (size_t g = 0; g < table.rows.size(); ++g) {
    nlohmann::json row = {{"name", table.graph_names[g]}};
    for (size_t m = 0; m < table.metric_names.size(); ++m) {
      row[table.metric_names[m]] = number_or_null(table.rows[g][m]);
    }
    graphs.push_back(std::move(row));
  }
  out["graphs"] = std::move(graphs);
  out["graph_count"] = table.rows.size();
  for (size_t m = 0; m < table.metric_names.size(); ++m) {
    out[table.metric_names[m]] = number_or_null(table.means[m]);
  }
  return out;
}

std::string format_table(const MetricTable& table) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header = {"graph"};
  header.insert(header.end(), table.metric_names.begin(), table.metric_names.end());
  cells.push_back(header);
  for (size_t g = 0; g < table.rows.size(); ++g) {
    std::vector<std::string> line = {table.graph_names[g]};
    for (double value : table.rows[g]) line.push_back(format_metric(value));
    cells.push_back(std::move(line));
  }
  std::vector<std::string> mean_line = {"mean"};
  for (double value : table.means) mean_line.push_back(format_metric(value));
  cells.push_back(std::move(mean_line));

  std::vector<size_t> widths(header.size(), 0);
  for (const auto& line : cells) {
    for (size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], line[i].size());
  }
  std::string text;
  for (size_t r = 0; r < cells.size(); ++r) {
    // A rule above the mean row separates the summary from the per-graph rows.
    if (r + 1 == cells.size() && cells.size() > 2) {
      size_t total = 0;
      for (size_t w : widths) total += w + 2;
      text += std::string(total - 2, '-') + "\n";
    }
    const auto& line = cells[r];
    for (size_t i = 0; i < line.size(); ++i) {
      // Names align left, numbers right.
      std::string pad(widths[i] - line[i].size(), ' ');
      text += i == 0 ? line[i] + pad : pad + line[i];
      text += i + 1 < line.size() ? "  " : "\n";
    }
  }
  return text;
}

}  // namespace graphcost::eval
