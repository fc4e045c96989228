#include "sweep/results.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/error.h"

namespace graphcost::sweep {

namespace {

const std::vector<std::string> kMetricOrder = {"kendall_tau", "opa",         "top1_error",
                                               "top5_error",  "top10_error", "tile_score"};

std::string number(double x, const char* format = "%.4f") {
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

std::string mean_std(const Stat& s) {
  if (s.count == 0) return "";
  return s.count > 1 ? number(s.mean) + " ± " + number(s.std) : number(s.mean);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

nlohmann::json final_validation(const std::string& metrics_jsonl) {
  nlohmann::json found = nlohmann::json::object();
  std::istringstream lines(metrics_jsonl);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;  // a line cut by a crash is not a result
    nlohmann::json metrics = nlohmann::json::object();
    for (const std::string& name : kMetricOrder) {
      if (j.contains(name) && j[name].is_number()) metrics[name] = j[name];
    }
    if (!metrics.empty()) found = metrics;
  }
  return found;
}

Stat statistics(const std::vector<double>& values) {
  Stat s;
  s.count = static_cast<int64_t>(values.size());
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / s.count;
  if (s.count > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(squares / (s.count - 1));
  }
  return s;
}

namespace {

// metric value by seed of one combination's finished runs.
std::map<uint64_t, double> by_seed(const std::vector<RunResult>& results, const std::string& id,
                                   const std::string& metric) {
  std::map<uint64_t, double> values;
  for (const RunResult& r : results) {
    if (r.combination == id && r.done && r.metrics.contains(metric))
      values[r.seed] = r.metrics[metric].get<double>();
  }
  return values;
}

// other - base over the seeds both have.
eval::PairedComparison paired_by_seed(const std::map<uint64_t, double>& base,
                                      const std::map<uint64_t, double>& other) {
  std::vector<double> b, o;
  for (const auto& [seed, value] : base) {
    const auto found = other.find(seed);
    if (found == other.end()) continue;
    b.push_back(value);
    o.push_back(found->second);
  }
  return eval::compare_paired(b, o);
}

}  // namespace

Summary summarise(const std::vector<Combination>& combinations,
                  const std::vector<RunResult>& results, const std::string& baseline) {
  Summary summary;
  if (!baseline.empty()) {
    std::string ids;
    for (const Combination& c : combinations) {
      if (c.id == baseline || c.name == baseline) summary.baseline = c.id;
      ids += (ids.empty() ? "" : ", ") + c.id;
    }
    check_data(!summary.baseline.empty(), "--baseline", "",
               "no combination has id or name '" + baseline + "' (ids: " + ids + ")");
  }
  for (const std::string& name : kMetricOrder) {
    for (const RunResult& r : results) {
      if (r.done && r.metrics.contains(name)) {
        summary.metric_names.push_back(name);
        break;
      }
    }
  }
  for (const Combination& c : combinations) {
    Row row;
    row.id = c.id;
    row.name = c.name;
    std::vector<std::vector<double>> values(summary.metric_names.size());
    std::vector<double> seconds;
    for (const RunResult& r : results) {
      if (r.combination != c.id) continue;
      if (r.failed) {
        ++row.failed;
      } else if (!r.done) {
        ++row.pending;
      } else {
        ++row.done;
        seconds.push_back(r.seconds);
        for (size_t m = 0; m < summary.metric_names.size(); ++m) {
          if (r.metrics.contains(summary.metric_names[m]))
            values[m].push_back(r.metrics[summary.metric_names[m]].get<double>());
        }
      }
    }
    for (const auto& v : values) row.metrics.push_back(statistics(v));
    row.seconds = statistics(seconds);
    if (!summary.baseline.empty() && c.id != summary.baseline) {
      for (const std::string& metric : summary.metric_names) {
        row.paired.push_back(paired_by_seed(by_seed(results, summary.baseline, metric),
                                            by_seed(results, c.id, metric)));
      }
    }
    summary.rows.push_back(row);
  }
  return summary;
}

// "+0.0200 [+0.0004, +0.0396]*" (* where the interval excludes zero), "+0.0200 (1 seed)", or
// empty without pairs.
std::string paired_text(const eval::PairedComparison& p) {
  if (p.units == 0) return "";
  const std::string mean = number(p.mean_difference, "%+.4f");
  if (p.units < 2) return mean + " (1 seed)";
  return mean + " [" + number(p.interval_low, "%+.4f") + ", " +
         number(p.interval_high, "%+.4f") + "]" + (p.excludes_zero() ? "*" : "");
}

std::string to_markdown(const Summary& summary) {
  std::string out = "| id | combination | runs |";
  std::string rule = "|---|---|---|";
  for (const std::string& m : summary.metric_names) {
    out += " " + m + " |";
    rule += "---|";
  }
  if (!summary.baseline.empty()) {
    for (const std::string& m : summary.metric_names) {
      out += " Δ " + m + " |";
      rule += "---|";
    }
  }
  out += " train s |\n" + rule + "---|\n";
  for (const Row& r : summary.rows) {
    std::string runs = std::to_string(r.done);
    if (r.failed > 0) runs += " (" + std::to_string(r.failed) + " failed)";
    if (r.pending > 0) runs += " (" + std::to_string(r.pending) + " pending)";
    out += "| " + r.id + " | " + r.name + " | " + runs + " |";
    for (const Stat& s : r.metrics) out += " " + mean_std(s) + " |";
    if (!summary.baseline.empty()) {
      for (size_t m = 0; m < summary.metric_names.size(); ++m) {
        out += " " + (r.id == summary.baseline ? std::string("baseline")
                                                : paired_text(r.paired[m])) + " |";
      }
    }
    out += " " + (r.seconds.count ? number(r.seconds.mean, "%.1f") : "") + " |\n";
  }
  if (!summary.baseline.empty()) {
    out += "\nΔ: mean difference from " + summary.baseline +
           " paired by seed, with its 95% t interval over those seeds; * where the interval "
           "excludes zero (a detectable effect), otherwise no detectable effect.\n";
  }
  return out;
}

std::string to_csv(const Summary& summary) {
  std::string out = "id,combination,done,failed,pending";
  for (const std::string& m : summary.metric_names) out += "," + m + "_mean," + m + "_std";
  if (!summary.baseline.empty()) {
    for (const std::string& m : summary.metric_names)
      out += "," + m + "_diff," + m + "_diff_low," + m + "_diff_high," + m + "_pairs";
  }
  out += ",train_seconds_mean\n";
  for (const Row& r : summary.rows) {
    out += r.id + "," + csv_field(r.name) + "," + std::to_string(r.done) + "," +
           std::to_string(r.failed) + "," + std::to_string(r.pending);
    for (const Stat& s : r.metrics) {
      out += s.count ? "," + number(s.mean, "%.6g") + "," + number(s.std, "%.6g") : ",,";
    }
    if (!summary.baseline.empty()) {
      for (size_t m = 0; m < summary.metric_names.size(); ++m) {
        if (r.paired.empty() || r.paired[m].units == 0) {
          out += ",,,,";
          continue;
        }
        const eval::PairedComparison& p = r.paired[m];
        const bool interval = p.units >= 2;
        out += "," + number(p.mean_difference, "%.6g") + "," +
               (interval ? number(p.interval_low, "%.6g") : "") + "," +
               (interval ? number(p.interval_high, "%.6g") : "") + "," +
               std::to_string(p.units);
      }
    }
    out += "," + (r.seconds.count ? number(r.seconds.mean, "%.3f") : "") + "\n";
  }
  return out;
}

std::string to_html(const Summary& summary, const std::string& title) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
      "</title><style>body{font-family:sans-serif}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
      "td:nth-child(2){text-align:left}</style></head><body>\n<h1>" +
      html_escape(title) +
      "</h1>\n<p>Mean ± sample standard deviation over seeds of each final validation "
      "metric.</p>\n<table>\n<tr><th>id</th><th>combination</th><th>runs</th>";
  for (const std::string& m : summary.metric_names) out += "<th>" + html_escape(m) + "</th>";
  if (!summary.baseline.empty()) {
    for (const std::string& m : summary.metric_names)
      out += "<th>Δ " + html_escape(m) + " vs " + summary.baseline + "</th>";
  }
  out += "<th>train s</th></tr>\n";
  for (const Row& r : summary.rows) {
    out += "<tr><td>" + r.id + "</td><td>" + html_escape(r.name) + "</td><td>" +
           std::to_string(r.done) + (r.failed ? " (" + std::to_string(r.failed) + " failed)" : "") +
           "</td>";
    for (const Stat& s : r.metrics) out += "<td>" + mean_std(s) + "</td>";
    if (!summary.baseline.empty()) {
      for (size_t m = 0; m < summary.metric_names.size(); ++m) {
        out += "<td>" + (r.id == summary.baseline ? std::string("baseline")
                                                   : paired_text(r.paired[m])) + "</td>";
      }
    }
    out += "<td>" + (r.seconds.count ? number(r.seconds.mean, "%.1f") : "") + "</td></tr>\n";
  }
  return out + "</table>\n</body></html>\n";
}

}  // namespace graphcost::sweep
