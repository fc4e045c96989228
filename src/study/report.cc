#include "study/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "eval/svg_plot.h"
#include "study/importance.h"

namespace graphcost::study {

namespace {

using eval::escape_html;
using eval::format_tick;

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

std::string value_text(const std::optional<double>& v) { return v ? number_text(*v) : ""; }

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string param_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f4f4f4}"
    ".plots{display:flex;flex-wrap:wrap;gap:1em}code{background:#f4f4f4;padding:1px 4px}";

// Parallel coordinates: one vertical axis per parameter (numeric ones in their internal
// coordinate, log for log parameters; categorical ones by choice index), one polyline per
// complete trial, darker for better values.
std::string parallel_coordinates(const StudySummary& study, const std::vector<TrialRecord>& trials) {
  const std::vector<Parameter>& params = study.space.parameters;
  std::vector<const TrialRecord*> done;
  for (const TrialRecord& t : trials)
    if (t.state == TrialState::Complete && t.value && std::isfinite(*t.value)) done.push_back(&t);
  if (params.empty() || done.size() < 2) return "";
  const int width = 160 + 140 * static_cast<int>(params.size()), height = 340, top = 48, bottom = 40;
  double lo = *done[0]->value, hi = lo;
  for (const TrialRecord* t : done) lo = std::min(lo, *t->value), hi = std::max(hi, *t->value);
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(height) + "\">\n";
  auto x_of = [&](size_t axis) { return 80.0 + 140.0 * static_cast<double>(axis); };
  // The objective is the last axis.
  const size_t axes = params.size() + 1;
  // Each axis's ends: a parameter's range (first and last choice), or the values' range.
  auto end_label = [&](size_t a, bool top_end) {
    if (a >= params.size()) return number_text(top_end ? hi : lo);
    const Parameter& p = params[a];
    if (p.kind == Parameter::Kind::Categorical)
      return p.choices.empty() ? std::string() : param_text(top_end ? p.choices.back() : p.choices.front());
    return number_text(top_end ? p.high : p.low);
  };
  for (size_t a = 0; a < axes; ++a) {
    for (const bool top_end : {false, true})
      svg += "<text x=\"" + number_text(x_of(a)) + "\" y=\"" +
             std::to_string(top_end ? top - 2 : height - bottom + 14) +
             "\" font-size=\"10\" fill=\"#555\" text-anchor=\"middle\">" +
             escape_html(end_label(a, top_end)) + "</text>\n";
    const std::string label = a < params.size() ? params[a].key : study.objective;
    svg += "<line x1=\"" + number_text(x_of(a)) + "\" y1=\"" + std::to_string(top) + "\" x2=\"" +
           number_text(x_of(a)) + "\" y2=\"" + std::to_string(height - bottom) +
           "\" stroke=\"#888\"/>\n<text x=\"" + number_text(x_of(a)) + "\" y=\"" +
           std::to_string(top - 18) + "\" font-size=\"11\" text-anchor=\"middle\">" +
           escape_html(label) + "</text>\n";
  }
  auto y_of = [&](double fraction) { return height - bottom - fraction * (height - top - bottom); };
  for (const TrialRecord* t : done) {
    const double goodness = hi > lo ? (*t->value - lo) / (hi - lo) : 1.0;
    const double shade = study.maximize ? goodness : 1.0 - goodness;
    std::string points;
    for (size_t a = 0; a < axes; ++a) {
      double fraction = 0.5;
      if (a < params.size()) {
        const Parameter& p = params[a];
        if (!t->params.contains(p.key)) continue;  // inactive (a condition not met)
        const std::optional<double> v = internal_value(p, t->params[p.key]);
        if (!v) continue;
        if (p.kind == Parameter::Kind::Categorical) {
          fraction = p.choices.size() > 1 ? *v / static_cast<double>(p.choices.size() - 1) : 0.5;
        } else {
          const auto [a_lo, a_hi] = internal_range(p);
          fraction = a_hi > a_lo ? (*v - a_lo) / (a_hi - a_lo) : 0.5;
        }
      } else {
        fraction = goodness;
      }
      points += number_text(x_of(a)) + "," + number_text(y_of(std::clamp(fraction, 0.0, 1.0))) + " ";
    }
    const int grey = static_cast<int>(220 - 180 * shade);
    svg += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"rgb(" + std::to_string(grey) +
           "," + std::to_string(grey) + ",255)\" points=\"" + points + "\"><title>trial " +
           std::to_string(t->number) + ": " + number_text(*t->value) + "</title></polyline>\n";
  }
  return svg + "</svg>\n";
}

std::string importance_bars(const StudySummary& study, const std::vector<TrialRecord>& trials) {
  const auto importance = parameter_importance(study.space, trials, study.maximize);
  if (importance.empty()) return "";
  const int row = 22, width = 640;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(row * importance.size() + 10) + "\">\n";
  for (size_t i = 0; i < importance.size(); ++i) {
    const double w = 300.0 * std::clamp(importance[i].second, 0.0, 1.0);
    const std::string y = std::to_string(row * i + 5);
    svg += "<text x=\"230\" y=\"" + std::to_string(row * i + 19) +
           "\" font-size=\"12\" text-anchor=\"end\">" + escape_html(importance[i].first) +
           "</text><rect fill=\"#4a7ab8\" x=\"240\" y=\"" + y + "\" width=\"" + number_text(w) +
           "\" height=\"16\"/><text x=\"" + number_text(246 + w) + "\" y=\"" +
           std::to_string(row * i + 18) + "\" font-size=\"11\">" + format_tick(importance[i].second) +
           "</text>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace

const TrialRecord* best_trial(const std::vector<TrialRecord>& trials, bool maximize) {
  const TrialRecord* best = nullptr;
  for (const TrialRecord& t : trials) {
    if (t.state != TrialState::Complete || !t.value || !std::isfinite(*t.value)) continue;
    if (!best || (maximize ? *t.value > *best->value : *t.value < *best->value)) best = &t;
  }
  return best;
}

std::string summary_text(const StudySummary& study, const std::vector<TrialRecord>& trials) {
  std::map<TrialState, int64_t> counts;
  for (const TrialRecord& t : trials) ++counts[t.state];
  std::string text = "study " + study.name + ": " + std::to_string(trials.size()) + " trials (" +
                     std::to_string(counts[TrialState::Complete]) + " complete, " +
                     std::to_string(counts[TrialState::Pruned]) + " pruned, " +
                     std::to_string(counts[TrialState::Failed]) + " failed, " +
                     std::to_string(counts[TrialState::Running]) + " running); objective " +
                     study.objective + " (" + (study.maximize ? "max" : "min") + ")\n";
  const TrialRecord* best = best_trial(trials, study.maximize);
  if (!best) return text + "best: none yet (no complete trial)\n";
  text += "best: trial " + std::to_string(best->number) + ", " + study.objective + " " +
          number_text(*best->value) + ", run " + best->run_dir + "\n";
  for (const auto& [key, value] : best->params.items())
    text += "  " + key + " = " + param_text(value) + "\n";
  return text;
}

nlohmann::json trials_json(const std::vector<TrialRecord>& trials) {
  nlohmann::json out = nlohmann::json::array();
  for (const TrialRecord& t : trials) {
    nlohmann::json intermediate = nlohmann::json::object();
    for (const auto& [step, v] : t.intermediate) intermediate[std::to_string(step)] = v;
    out.push_back({{"number", t.number},
                   {"state", trial_state_name(t.state)},
                   {"params", t.params},
                   {"value", t.value ? nlohmann::json(*t.value) : nlohmann::json(nullptr)},
                   {"intermediate", intermediate},
                   {"run_dir", t.run_dir},
                   {"worker", t.worker},
                   {"started", t.started},
                   {"finished", t.finished},
                   {"message", t.message}});
  }
  return out;
}

std::string trials_csv(const StudySummary& study, const std::vector<TrialRecord>& trials) {
  std::string text = "number,state,value,run_dir";
  for (const Parameter& p : study.space.parameters) text += "," + csv_field(p.key);
  text += ",message\n";
  for (const TrialRecord& t : trials) {
    text += std::to_string(t.number) + "," + trial_state_name(t.state) + "," + value_text(t.value) +
            "," + csv_field(t.run_dir);
    for (const Parameter& p : study.space.parameters)
      text += "," + (t.params.contains(p.key) ? csv_field(param_text(t.params[p.key])) : "");
    text += "," + csv_field(t.message) + "\n";
  }
  return text;
}

std::string study_report_html(const StudySummary& study, const std::vector<TrialRecord>& trials) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>graphcost study: " + escape_html(study.name) + "</title>\n<style>" +
          std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>graphcost study " +
          escape_html(study.name) + "</h1>\n<pre>" + escape_html(summary_text(study, trials)) +
          "</pre>\n";
  // Optimisation history: each complete trial's value and the best so far.
  std::vector<double> number, value, best_number, best_value;
  std::optional<double> best;
  for (const TrialRecord& t : trials) {
    if (t.state != TrialState::Complete || !t.value || !std::isfinite(*t.value)) continue;
    number.push_back(static_cast<double>(t.number));
    value.push_back(*t.value);
    if (!best || (study.maximize ? *t.value > *best : *t.value < *best)) best = t.value;
    best_number.push_back(static_cast<double>(t.number));
    best_value.push_back(*best);
  }
  html += "<h2>Optimisation history</h2>\n<div class=\"plots\">\n";
  html += eval::svg_scatter_plot({"value of each complete trial", "trial", study.objective},
                                 number, value);
  html += eval::svg_line_plot({"best so far", "trial", study.objective}, best_number, best_value);
  html += "</div>\n";
  // Intermediate values: complete trials and pruned ones apart.
  std::vector<double> cx, cy, px, py;
  for (const TrialRecord& t : trials)
    for (const auto& [step, v] : t.intermediate) {
      (t.state == TrialState::Pruned ? px : cx).push_back(static_cast<double>(step));
      (t.state == TrialState::Pruned ? py : cy).push_back(v);
    }
  html += "<h2>Intermediate values</h2>\n<div class=\"plots\">\n";
  html += eval::svg_scatter_plot({"trials that ran to the end", "iteration", study.objective}, cx, cy);
  html += eval::svg_scatter_plot({"pruned trials", "iteration", study.objective}, px, py);
  html += "</div>\n";
  const std::string parallel = parallel_coordinates(study, trials);
  if (!parallel.empty())
    html += "<h2>Parallel coordinates</h2>\n<p>One line per complete trial, darker is better; "
            "log parameters on a log axis.</p>\n" +
            parallel;
  const std::string bars = importance_bars(study, trials);
  if (!bars.empty())
    html += "<h2>Parameter importance</h2>\n<p>PED-ANOVA (Watanabe, Bansal and Hutter, IJCAI "
            "2023): how far each parameter's distribution among the best 10% of complete trials "
            "departs from its distribution among all of them.</p>\n" +
            bars;
  html += "<h2>Trials</h2>\n<table>\n<tr><th>trial</th><th>state</th><th>" +
          escape_html(study.objective) + "</th><th>parameters</th><th>message</th></tr>\n";
  for (const TrialRecord& t : trials)
    html += "<tr><td>" + std::to_string(t.number) + "</td><td>" + trial_state_name(t.state) +
            "</td><td>" + value_text(t.value) + "</td><td style=\"text-align:left\"><code>" +
            escape_html(t.params.dump()) + "</code></td><td style=\"text-align:left\">" +
            escape_html(t.message) + "</td></tr>\n";
  return html + "</table>\n</body>\n</html>\n";
}

}  // namespace graphcost::study
