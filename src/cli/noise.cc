// graphcost noise: how far a file's repeated measurements of the same configurations agree, the
// Kendall tau that bounds for any ranker, and (given a submission) where a model stands on them.
// The flags and the printing; the analysis is eval/noise.h's.
#include "eval/noise.h"

#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "eval/summary.h"

namespace graphcost::cli {

namespace {

  // collection, data, split
struct NoiseCommand {
  eval::NoiseOptions noise;
  bool json = false;
};

std::string text(const nlohmann::json& value) {
  return eval::format_metric(value.is_null() ? std::numeric_limits<double>::quiet_NaN()
                                             : value.get<double>());
}

// Relative differences are small (AlexNet's median is 2e-4): three significant digits.
std::string relative_text(const nlohmann::json& value) {
  if (value.is_null()) return text(value);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value.get<double>());
  return buffer;
}

void print_graph(const nlohmann::json& g, const eval::NoiseOptions& o) {
  std::string apart = "at least " + std::to_string(o.min_gap);
  if (o.max_gap != std::numeric_limits<int64_t>::max())
    apart += " and at most " + std::to_string(o.max_gap);
  std::printf(
      "%s (%s): %lld records, %lld distinct configurations, %lld measured twice %s "
      "records apart\n",
      g["graph"].get<std::string>().c_str(), g["source"].get<std::string>().c_str(),
      g["records"].get<long long>(), g["distinct"].get<long long>(),
      g["all"]["count"].get<long long>(), apart.c_str());
  std::printf("  %-24s %8s %18s %12s %8s\n", "repeats", "count", "median |a-b|/min", "tau(a, b)",
              "bound");
  char fast_label[64];
  std::snprintf(fast_label, sizeof fast_label, "fast (< %g x fastest)", o.fast);
  for (const auto& [label, key] : {std::pair<std::string, std::string>{"all", "all"},
                                   std::pair<std::string, std::string>{fast_label, "fast"}}) {
    const nlohmann::json& a = g[key];
    std::printf("  %-24s %8lld %18s %12s %8s\n", label.c_str(), a["count"].get<long long>(),
                relative_text(a["median_relative_difference"]).c_str(),
                text(a["repeat_tau"]).c_str(), text(a["bound"]).c_str());
  }
  if (!g.contains("model")) return;
  const nlohmann::json& m = g["model"];
  std::printf("  %s on those in %s:\n", m["submission"].get<std::string>().c_str(),
              m["split"].get<std::string>().c_str());
  std::printf("  %-24s %8s %12s %8s %12s %12s\n", "", "count", "tau(a, b)", "bound", "model vs a",
              "model vs b");
  for (const std::string key : {"all", "fast"}) {
    const nlohmann::json& a = m[key];
    std::printf("  %-24s %8lld %12s %8s %12s %12s\n", key.c_str(), a["count"].get<long long>(),
                text(a["repeat_tau"]).c_str(), text(a["bound"]).c_str(),
                text(a["model_tau_first"]).c_str(), text(a["model_tau_second"]).c_str());
  }
}

void print_means(const nlohmann::json& means) {
  std::string line = "mean over graphs (graphs where defined):";
  auto add = [&](const std::string& label, const nlohmann::json& slot) {
    line += " " + label + " " + text(slot["mean"]) + " (" +
            std::to_string(slot["graphs"].get<long long>()) + ")";
  };
  for (const auto& [group, name] : eval::noise_mean_figures())
    add(group + " " + name, means[group][name]);
  if (means.contains("model")) {
    for (const auto& [group, name] : eval::noise_model_mean_figures())
      add(group + " " + name, means["model"][group][name]);
  }
  std::printf("%s\n", line.c_str());
}

void run_noise(const NoiseCommand& c) {
  const eval::NoiseOptions& o = c.noise;
  check_data(o.submission.empty() == o.source.data.empty(), "noise", "--submission",
             "--submission and --data go together (the split the submission ranks)");
  check_data(o.max_gap >= o.min_gap, "noise", "--max-gap", "must be at least --min-gap");
  const nlohmann::json report = eval::noise_report(o);
  if (c.json) {
    std::printf("%s\n", report.dump(2).c_str());
    return;
  }
  for (const auto& g : report["graphs"]) print_graph(g, o);
  if (report.contains("mean")) print_means(report["mean"]);
}

}  // namespace

void add_noise_command(CLI::App& app) {
  auto c = std::make_shared<NoiseCommand>();
  eval::NoiseOptions* o = &c->noise;
  CLI::App* cmd = app.add_subcommand(
      "noise",
      "How far repeated measurements of the same configurations agree (Kendall tau of two "
      "measurements), the tau that bounds for any ranker, and a submission's tau on them");
  cmd->add_option("path", o->path,
                  "the measured records, not deduplicated: a .npz or a folder of them")
      ->required();
  add_data_options(cmd, o->source, {"collection"},
                   {{"collection",
                     "collection id (default: the kind from the data; with "
                     "--submission, the one collection it ranks)"}});
  cmd->add_option("--min-gap", o->min_gap,
                  "pair a configuration's first measurement with its first repeat at least this "
                  "many records later (records close together share drift)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--max-gap", o->max_gap,
                  "only pairs whose repeat is at most this many records later (default: any)")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--fast", o->fast,
                  "the fast group: both measurements below this times the graph's fastest "
                  "runtime")
      ->check(CLI::Range(1.0, 1e9))
      ->capture_default_str();
  cmd->add_option("--submission", o->submission,
                  "a layout submission CSV ranking a split of the same graphs: its tau against "
                  "each measurement of the repeated configurations that split holds");
  add_data_options(cmd, o->source, {"data", "split"},
                   {{"data", "with --submission: the dataset the submission ranks"},
                    {"split", "with --submission: its split"}});
  cmd->add_flag("--json", c->json, "one JSON object on stdout");
  cmd->callback([c] { run_noise(*c); });
}

}  // namespace graphcost::cli
