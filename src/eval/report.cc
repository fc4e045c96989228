#include "eval/report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/error.h"
#include "eval/metrics.h"
#include "eval/svg_plot.h"
#include "run/run_folder.h"

namespace graphcost::eval {

namespace {

constexpr size_t kMaxScatterGraphs = 6;
constexpr size_t kMaxScatterPoints = 2000;

// Validation metrics in the order the page shows them; other numeric keys follow by name.
const std::vector<std::string> kValidationKeys = {"kendall_tau", "opa",         "top1_error",
                                                  "top5_error",  "top10_error", "tile_score"};
const std::vector<std::string> kTrainingKeys = {"loss", "configs_per_s"};

struct Series {
  std::vector<double> iterations;
  std::vector<double> values;
};

std::string line_key(size_t line_number) { return "line " + std::to_string(line_number); }

nlohmann::json parse_object_line(const std::string& line, const std::string& path,
                                 size_t line_number) {
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path, line_key(line_number), std::string("not valid JSON (") + e.what() + ")");
  }
  check_data(record.is_object(), path, line_key(line_number), "expected a JSON object");
  return record;
}

std::map<std::string, Series> read_metrics(const std::string& path) {
  std::map<std::string, Series> series;
  const std::string text = read_file(path);
  size_t start = 0, line_number = 0, records = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json record = parse_object_line(line, path, line_number);
    auto iteration = record.find("iteration");
    check_data(iteration != record.end() && iteration->is_number(), path, line_key(line_number),
               "missing a numeric \"iteration\"");
    const double x = iteration->get<double>();
    for (auto& [key, value] : record.items()) {
      // Booleans, strings and nulls are bookkeeping, not curves.
      if (key == "iteration" || !value.is_number()) continue;
      series[key].iterations.push_back(x);
      series[key].values.push_back(value.get<double>());
    }
    ++records;
  }
  check_data(records > 0, path, "", "holds no records");
  return series;
}

std::string section(const std::string& title, const std::map<std::string, Series>& series,
                    const std::vector<std::string>& keys) {
  std::string html;
  for (const std::string& key : keys) {
    auto it = series.find(key);
    if (it == series.end()) continue;
    PlotOptions options{key + " vs iteration", "iteration", key};
    html += svg_line_plot(options, it->second.iterations, it->second.values);
  }
  if (html.empty()) return "";
  return "<h2>" + escape_html(title) + "</h2>\n<div class=\"plots\">\n" + html + "</div>\n";
}

std::string latest_values_table(const std::map<std::string, Series>& series) {
  std::string html =
      "<table>\n<tr><th>key</th><th>last value</th><th>at iteration</th>"
      "<th>points</th></tr>\n";
  for (const auto& [key, s] : series) {
    html += "<tr><td>" + escape_html(key) + "</td><td>" + format_tick(s.values.back()) +
            "</td><td>" + format_tick(s.iterations.back()) + "</td><td>" +
            std::to_string(s.values.size()) + "</td></tr>\n";
  }
  return html + "</table>\n";
}

std::vector<double> number_array(const nlohmann::json& record, const char* key,
                                 const std::string& path, size_t line_number) {
  auto it = record.find(key);
  check_data(it != record.end() && it->is_array(), path, line_key(line_number),
             std::string("missing the array \"") + key + "\"");
  std::vector<double> values;
  for (const auto& v : *it) {
    check_data(v.is_number(), path, line_key(line_number),
               std::string("\"") + key + "\" holds a non-number");
    values.push_back(v.get<double>());
  }
  return values;
}

std::string prediction_scatters(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";  // the file is optional
  std::string html, line;
  size_t line_number = 0, graphs = 0;
  while (graphs < kMaxScatterGraphs && std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json record = parse_object_line(line, path, line_number);
    auto name = record.find("graph");
    check_data(name != record.end() && name->is_string(), path, line_key(line_number),
               "missing the string \"graph\"");
    std::vector<double> predicted = number_array(record, "predicted", path, line_number);
    std::vector<double> measured = number_array(record, "measured", path, line_number);
    check_data(predicted.size() == measured.size(), path, line_key(line_number),
               "\"predicted\" and \"measured\" differ in length");
    char tau[32];
    std::snprintf(tau, sizeof(tau), "%.3f", kendall_tau(predicted, measured));
    // Thin large graphs evenly so the page stays small; tau uses every point.
    const size_t stride =
        std::max<size_t>(1, (predicted.size() + kMaxScatterPoints - 1) / kMaxScatterPoints);
    std::vector<double> x, y;
    for (size_t i = 0; i < predicted.size(); i += stride) {
      x.push_back(measured[i]);
      y.push_back(predicted[i]);
    }
    PlotOptions options{name->get<std::string>() + " (" + std::to_string(predicted.size()) +
                            " configs, tau " + tau + ")",
                        "measured runtime", "predicted score"};
    html += svg_scatter_plot(options, x, y);
    ++graphs;
  }
  if (html.empty()) return "";
  return "<h2>Validation predictions</h2>\n<div class=\"plots\">\n" + html + "</div>\n";
}

const char kStyle[] =
    "body{font-family:sans-serif;margin:24px;color:#222}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
    ".plots{display:flex;flex-wrap:wrap;gap:12px}"
    "svg{border:1px solid #ddd}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
    "pre{background:#f6f6f6;padding:8px;overflow:auto}";

}  // namespace

std::string render_report(const std::string& run_dir) {
  const run::RunFolder folder(run_dir);
  std::map<std::string, Series> series = read_metrics(folder.metrics_path());

  std::vector<std::string> other_keys;
  for (const auto& entry : series) {
    const std::string& key = entry.first;
    if (std::find(kTrainingKeys.begin(), kTrainingKeys.end(), key) == kTrainingKeys.end() &&
        std::find(kValidationKeys.begin(), kValidationKeys.end(), key) == kValidationKeys.end()) {
      other_keys.push_back(key);
    }
  }

  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>graphcost report: " + escape_html(run_dir) + "</title>\n";
  html += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  html += "<h1>graphcost training report</h1>\n<p>Run folder: <code>" + escape_html(run_dir) +
          "</code></p>\n";
  html += latest_values_table(series);
  html += section("Training", series, kTrainingKeys);
  html += section("Validation", series, kValidationKeys);
  html += section("Other values", series, other_keys);
  html += prediction_scatters(folder.valid_predictions_path());
  if (const auto config = folder.config_text())
    html += "<h2>Configuration</h2>\n<pre>" + escape_html(*config) + "</pre>\n";
  return html + "</body>\n</html>\n";
}

void write_report(const std::string& run_dir) {
  run::RunFolder(run_dir).write_report(render_report(run_dir));
}

}  // namespace graphcost::eval
