// graphcost noise: how far a file's repeated measurements of the same configurations agree, the
// Kendall tau that bounds for any ranker, and (given a submission) where a model stands on them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "data/collection.h"
#include "data/dedup.h"
#include "eval/metrics.h"
#include "eval/repeats.h"
#include "eval/submission.h"
#include "eval/summary.h"
#include "io/collection_readers.h"

namespace graphcost::cli {

namespace {

struct NoiseOptions {
  std::string path;
  // collection, data, split
  data::DataOptions source{"", "", "valid", {}, false, -1, "all", "", ""};
  int64_t min_gap = 1;
  int64_t max_gap = std::numeric_limits<int64_t>::max();
  double fast = 1.01;
  std::string submission;
  bool json = false;
};

// One graph of the measured file: its repeat pairs, the feature bytes of each repeated
// configuration (to find it in a split) and the fast group.
struct RepeatedGraph {
  std::string name;
  std::string source;
  data::ConfigKind kind = data::ConfigKind::Layout;
  int64_t records = 0;
  int64_t distinct = 0;
  double fastest = 0;
  eval::RepeatPairs pairs;
  std::vector<int64_t> fast;
  std::vector<std::string> keys;
  nlohmann::json model;  // filled when a submission ranks this graph
};

nlohmann::json agreement_json(const eval::Agreement& a) {
  auto number = [](double x) { return std::isnan(x) ? nlohmann::json() : nlohmann::json(x); };
  return {{"count", a.count},
          {"median_relative_difference", number(a.median_relative_difference)},
          {"repeat_tau", number(a.tau)},
          {"bound", number(a.bound)}};
}

// The model's tau against each measurement on the repeated configurations the split holds
// (positions into the graph's pairs), with those configurations' own repeat agreement.
nlohmann::json model_json(const eval::RepeatPairs& pairs, const std::vector<double>& predicted,
                          const std::vector<int64_t>& positions) {
  std::vector<double> costs;
  for (int64_t p : positions) costs.push_back(predicted[p]);
  const eval::RepeatPairs chosen = pairs.select(positions);
  nlohmann::json j = agreement_json(eval::agreement(chosen));
  const double first = eval::kendall_tau(costs, chosen.first);
  const double second = eval::kendall_tau(costs, chosen.second);
  j["model_tau_first"] = std::isnan(first) ? nlohmann::json() : nlohmann::json(first);
  j["model_tau_second"] = std::isnan(second) ? nlohmann::json() : nlohmann::json(second);
  return j;
}

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

// Scores each graph the submission ranks: its rankings are of the split's configurations, so
// the repeated configurations are found there by their feature bytes.
void add_model(const NoiseOptions& o, std::vector<RepeatedGraph>& graphs) {
  std::map<std::string, std::map<std::string, std::vector<int64_t>>> rankings;  // collection, stem
  for (auto& row : eval::read_submission(o.submission)) {
    auto [collection, stem] = eval::split_submission_id(row.id, o.submission);
    rankings[collection][stem] = std::move(row.top_configs);
  }
  check_data(!rankings.empty(), o.submission, "", "no rows");
  std::string collection = o.source.collection;
  if (collection.empty()) {
    check_data(rankings.size() == 1, o.submission, "",
               "ranks graphs of " + std::to_string(rankings.size()) +
                   " collections: name one with --collection");
    collection = rankings.begin()->first;
  }
  auto ranked = rankings.find(collection);
  check_data(ranked != rankings.end(), o.submission, collection, "no rows of this collection");
  const data::CollectionId id = data::CollectionId::parse(collection);
  check_data(id.kind == data::ConfigKind::Layout, o.submission, collection,
             "tile submissions list only the top 5; a model's tau on the repeats needs a full "
             "layout ranking");
  std::map<std::string, RepeatedGraph*> by_name;
  for (RepeatedGraph& g : graphs) by_name[g.name] = &g;
  data::LoadOptions load;
  load.merge_duplicates = false;  // submission indices are the split file's own
  int64_t matched = 0;
  io::for_each_graph(
      o.source.data, id, o.source.split, load, 2,
      [&](const data::Graph& graph, const data::ConfigView& configs, const std::string& source) {
        auto g = by_name.find(graph.name);
        auto r = ranked->second.find(graph.name);
        if (g == by_name.end() || r == ranked->second.end()) return;
        RepeatedGraph& repeated = *g->second;
        const std::vector<double> costs = eval::costs_from_ranking(
            id.kind, r->second, configs.count,
            o.submission + ": " + eval::submission_id(collection, graph.name));
        std::unordered_map<std::string_view, int64_t> position;
        for (int64_t j = 0; j < configs.count; ++j)
          position.emplace(data::config_bytes(configs, j), j);
        // Per repeat pair, the model's cost of its configuration; the positions the split holds.
        std::vector<double> predicted(repeated.pairs.size(), 0);
        std::vector<int64_t> held, held_fast;
        std::set<int64_t> fast(repeated.fast.begin(), repeated.fast.end());
        for (int64_t i = 0; i < repeated.pairs.size(); ++i) {
          auto it = position.find(repeated.keys[i]);
          if (it == position.end()) continue;
          predicted[i] = costs[it->second];
          held.push_back(i);
          if (fast.count(i) != 0) held_fast.push_back(i);
        }
        repeated.model = {{"submission", o.submission},
                          {"split", source},
                          {"all", model_json(repeated.pairs, predicted, held)},
                          {"fast", model_json(repeated.pairs, predicted, held_fast)}};
        ++matched;
      });
  check_data(matched > 0, o.submission, collection,
             "ranks none of the measured graphs in the " + o.source.split + " split of " + o.source.data);
}

void print_graph(const nlohmann::json& g, const NoiseOptions& o) {
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

// Per figure, its mean over the graphs where it is defined and how many those are (the field's
// metrics average per graph too).
const std::vector<std::pair<std::string, std::string>> kMeanFigures = {
    {"all", "repeat_tau"}, {"all", "bound"}, {"fast", "repeat_tau"}, {"fast", "bound"}};
const std::vector<std::pair<std::string, std::string>> kMeanModelFigures = {
    {"all", "model_tau_first"},
    {"all", "model_tau_second"},
    {"fast", "model_tau_first"},
    {"fast", "model_tau_second"}};

// The value at a path of keys, or nullptr when a key is missing or the value is null.
const nlohmann::json* find_number(const nlohmann::json& j, const std::vector<std::string>& path) {
  const nlohmann::json* value = &j;
  for (const std::string& key : path) {
    if (!value->contains(key)) return nullptr;
    value = &(*value)[key];
  }
  return value->is_null() ? nullptr : value;
}

nlohmann::json graph_means(const nlohmann::json& graphs) {
  // The figures of every graph as a metric table (NaN where undefined), averaged by eval's
  // fill_means; the JSON groups them back as {group: {name: {mean, graphs}}}.
  std::vector<std::vector<std::string>> paths;
  for (const auto& [group, name] : kMeanFigures) paths.push_back({group, name});
  const bool model = std::any_of(graphs.begin(), graphs.end(),
                                 [](const nlohmann::json& g) { return g.contains("model"); });
  if (model) {
    for (const auto& [group, name] : kMeanModelFigures) paths.push_back({"model", group, name});
  }
  eval::MetricTable table;
  table.metric_names.resize(paths.size());
  for (const auto& g : graphs) {
    std::vector<double>& row = table.rows.emplace_back();
    for (const auto& path : paths) {
      const nlohmann::json* value = find_number(g, path);
      row.push_back(value != nullptr ? value->get<double>()
                                     : std::numeric_limits<double>::quiet_NaN());
    }
  }
  eval::fill_means(table);
  nlohmann::json means;
  for (size_t m = 0; m < paths.size(); ++m) {
    nlohmann::json::json_pointer at;
    for (const std::string& key : paths[m]) at /= key;
    const double mean = table.means[m];
    means[at] = {{"mean", std::isnan(mean) ? nlohmann::json() : nlohmann::json(mean)},
                 {"graphs", table.counts[m]}};
  }
  return means;
}

void print_means(const nlohmann::json& means) {
  std::string line = "mean over graphs (graphs where defined):";
  auto add = [&](const std::string& label, const nlohmann::json& slot) {
    line += " " + label + " " + text(slot["mean"]) + " (" +
            std::to_string(slot["graphs"].get<long long>()) + ")";
  };
  for (const auto& [group, name] : kMeanFigures) add(group + " " + name, means[group][name]);
  if (means.contains("model")) {
    for (const auto& [group, name] : kMeanModelFigures)
      add(group + " " + name, means["model"][group][name]);
  }
  std::printf("%s\n", line.c_str());
}

void run_noise(const NoiseOptions& o) {
  check_data(o.submission.empty() == o.source.data.empty(), "noise", "--submission",
             "--submission and --data go together (the split the submission ranks)");
  check_data(o.max_gap >= o.min_gap, "noise", "--max-gap", "must be at least --min-gap");
  data::LoadOptions load;
  load.merge_duplicates = false;  // the repeats are what this command reads
  data::CollectionId id;
  if (o.source.collection.empty()) {
    load.kind_from_data = true;
  } else {
    id = data::CollectionId::parse(o.source.collection);
  }
  std::vector<RepeatedGraph> graphs;
  io::for_each_graph(
      o.path, id, "", load, 2,
      [&](const data::Graph& graph, const data::ConfigView& configs, const std::string& source) {
        check_data(configs.has_runtimes(), source, "config_runtime",
                   "no measured runtimes (a test file?)");
        RepeatedGraph g;
        g.name = graph.name;
        g.source = source;
        g.kind = configs.kind;
        g.records = configs.count;
        g.distinct = data::count_distinct_configs(configs);
        g.pairs = eval::repeat_pairs(configs, o.min_gap, o.max_gap);
        g.fastest = std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < configs.count; ++j) {
          if (configs.failed == nullptr || configs.failed[j] == 0)
            g.fastest = std::min(g.fastest, configs.runtimes[j]);
        }
        g.fast = eval::fast_pairs(g.pairs, g.fastest, o.fast);
        for (int64_t record : g.pairs.first_record) {
          g.keys.emplace_back(data::config_bytes(configs, record));
        }
        graphs.push_back(std::move(g));
      });
  check_data(!graphs.empty(), o.path, "", "no graphs");
  if (!o.submission.empty()) add_model(o, graphs);

  nlohmann::json report = {{"min_gap", o.min_gap}, {"fast", o.fast}};
  if (o.max_gap != std::numeric_limits<int64_t>::max()) report["max_gap"] = o.max_gap;
  report["graphs"] = nlohmann::json::array();
  for (const RepeatedGraph& g : graphs) {
    nlohmann::json j = {{"graph", g.name},
                        {"source", g.source},
                        {"kind", data::config_kind_name(g.kind)},
                        {"records", g.records},
                        {"distinct", g.distinct},
                        {"fastest", g.fastest},
                        {"all", agreement_json(eval::agreement(g.pairs))},
                        {"fast", agreement_json(eval::agreement(g.pairs.select(g.fast)))}};
    if (!g.model.is_null()) j["model"] = g.model;
    report["graphs"].push_back(j);
  }
  if (graphs.size() > 1) report["mean"] = graph_means(report["graphs"]);
  if (o.json) {
    std::printf("%s\n", report.dump(2).c_str());
    return;
  }
  for (const auto& g : report["graphs"]) print_graph(g, o);
  if (report.contains("mean")) print_means(report["mean"]);
}

}  // namespace

void add_noise_command(CLI::App& app) {
  auto o = std::make_shared<NoiseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "noise",
      "How far repeated measurements of the same configurations agree (Kendall tau of two "
      "measurements), the tau that bounds for any ranker, and a submission's tau on them");
  cmd->add_option("path", o->path,
                  "the measured records, not deduplicated: a .npz or a folder of them")
      ->required();
  add_data_options(cmd, o->source, {"collection"},
                   {{"collection", "collection id (default: the kind from the data; with "
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
  cmd->add_flag("--json", o->json, "one JSON object on stdout");
  cmd->callback([o] { run_noise(*o); });
}

}  // namespace graphcost::cli
