#include "tune/tune_report.h"

#include <cmath>
#include <limits>

#include "eval/svg_plot.h"

namespace graphcost::tune {

namespace {

// JSON has no NaN or infinity: those become null.
nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json numbers_or_null(const std::vector<double>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : values) out.push_back(number_or_null(v));
  return out;
}

}  // namespace

double campaign_optimum(const SearchSpace& space, const std::vector<SeedCampaign>& runs,
                        bool replayed) {
  if (replayed) return space.optimum();
  double best = std::numeric_limits<double>::infinity();
  for (const SeedCampaign& run : runs) {
    if (!run.result.best_so_far.empty()) best = std::min(best, run.result.best_so_far.back());
  }
  return std::isfinite(best) ? best : std::numeric_limits<double>::quiet_NaN();
}

nlohmann::json campaign_report(const SearchSpace& space, const std::vector<SeedCampaign>& runs,
                               double optimum, const nlohmann::json& settings) {
  std::vector<std::vector<double>> curves;
  for (const SeedCampaign& run : runs) curves.push_back(run.result.best_so_far);
  int64_t recorded_failures = 0;
  for (uint8_t f : space.failed) recorded_failures += f;
  nlohmann::json report = {{"graph", space.name},
                           {"configurations", space.count},
                           {"failed_configurations", recorded_failures},
                           {"parameters", nlohmann::json::array()},
                           {"optimum", number_or_null(optimum)},
                           {"settings", settings}};
  for (const TuneParameter& p : space.parameters) report["parameters"].push_back(p.name);
  const struct {
    const char* key;
    double within;
  } targets[] = {{"reach_1pct", 0.01}, {"reach_5pct", 0.05}, {"reach_10pct", 0.10}};
  for (const auto& t : targets) {
    if (std::isnan(optimum)) {
      report[t.key] = nullptr;
      continue;
    }
    const int64_t budget =
        settings.contains("budget") && settings["budget"].is_number_integer()
            ? settings["budget"].get<int64_t>()
            : 0;
    const ReachSummary s = summarize_reach(curves, optimum, t.within, budget);
    report[t.key] = number_or_null(s.mean);
    report[std::string(t.key) + "_mean_with_misses"] = number_or_null(s.mean_with_misses);
    report[std::string(t.key) + "_median_with_misses"] = number_or_null(s.median_with_misses);
    report[std::string(t.key) + "_seeds"] = s.seeds_reached;
    report[std::string(t.key) + "_per_seed"] = s.per_seed;
  }
  report["curve"] = numbers_or_null(mean_curve(curves));
  nlohmann::json seeds = nlohmann::json::array();
  for (const SeedCampaign& run : runs) {
    const CampaignResult& r = run.result;
    nlohmann::json row = {{"seed", run.seed},
                          {"measurements", r.measurements.size()},
                          {"failed", r.failed},
                          {"curve", numbers_or_null(r.best_so_far)},
                          {"measured", nlohmann::json::array()}};
    for (const Measurement& m : r.measurements) row["measured"].push_back(m.config);
    int64_t best = -1;
    for (const Measurement& m : r.measurements) {
      if (!m.failed && (best < 0 || m.time < r.measurements[best].time))
        best = &m - r.measurements.data();
    }
    if (best >= 0) {
      row["best_time"] = r.measurements[best].time;
      row["best_config"] = r.measurements[best].config;
      row["best_assignment"] = space.assignment(r.measurements[best].config);
    }
    seeds.push_back(row);
  }
  report["seeds"] = seeds;
  return report;
}

std::string campaign_curve_svg(const nlohmann::json& report) {
  const double optimum =
      report["optimum"].is_number() ? report["optimum"].get<double>() : std::nan("");
  std::vector<double> x, y;
  const nlohmann::json& curve = report["curve"];
  for (size_t k = 0; k < curve.size(); ++k) {
    if (!curve[k].is_number()) continue;
    x.push_back(static_cast<double>(k + 1));
    y.push_back(std::isfinite(optimum) ? curve[k].get<double>() / optimum : curve[k].get<double>());
  }
  eval::PlotOptions o;
  o.title = report["graph"].get<std::string>() + ": " +
            report["settings"].value("strategy", std::string("")) + ", mean over " +
            std::to_string(report["seeds"].size()) + " seeds";
  o.x_label = "measurements";
  o.y_label = std::isfinite(optimum) ? "best found / optimum" : "best found time";
  return eval::svg_line_plot(o, x, y) + "\n";
}

}  // namespace graphcost::tune
