#include "eval/noise.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "data/dedup.h"
#include "eval/metrics.h"
#include "eval/submission.h"
#include "eval/summary.h"
#include "io/collection_readers.h"

namespace graphcost::eval {

namespace {

nlohmann::json number_or_null(double x) {
  return std::isnan(x) ? nlohmann::json() : nlohmann::json(x);
}

// Scores each graph the submission ranks: its rankings are of the split's configurations, so
// the repeated configurations are found there by their feature bytes.
void add_model(const NoiseOptions& o, std::vector<RepeatedGraph>& graphs) {
  std::map<std::string, std::map<std::string, std::vector<int64_t>>> rankings;  // collection, stem
  for (auto& row : read_submission(o.submission)) {
    auto [collection, stem] = split_submission_id(row.id, o.submission);
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
        const std::vector<double> costs =
            costs_from_ranking(id.kind, r->second, configs.count,
                               o.submission + ": " + submission_id(collection, graph.name));
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
                          {"all", model_agreement_json(repeated.pairs, predicted, held)},
                          {"fast", model_agreement_json(repeated.pairs, predicted, held_fast)}};
        ++matched;
      });
  check_data(
      matched > 0, o.submission, collection,
      "ranks none of the measured graphs in the " + o.source.split + " split of " + o.source.data);
}

// The value at a path of keys, or nullptr when a key is missing or the value is null.
const nlohmann::json* find_number(const nlohmann::json& j, const std::vector<std::string>& path) {
  const nlohmann::json* value = &j;
  for (const std::string& key : path) {
    if (!value->contains(key)) return nullptr;
    value = &(*value)[key];
  }
  return value->is_null() ? nullptr : value;
}

}  // namespace

RepeatedGraph repeated_graph(const data::Graph& graph, const data::ConfigView& configs,
                             const std::string& source, const NoiseOptions& options) {
  check_data(configs.has_runtimes(), source, "config_runtime",
             "no measured runtimes (a test file?)");
  RepeatedGraph g;
  g.name = graph.name;
  g.source = source;
  g.kind = configs.kind;
  g.records = configs.count;
  g.distinct = data::count_distinct_configs(configs);
  g.pairs = repeat_pairs(configs, options.min_gap, options.max_gap);
  g.fastest = std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < configs.count; ++j) {
    if (configs.failed == nullptr || configs.failed[j] == 0)
      g.fastest = std::min(g.fastest, configs.runtimes[j]);
  }
  g.fast = fast_pairs(g.pairs, g.fastest, options.fast);
  for (int64_t record : g.pairs.first_record) {
    g.keys.emplace_back(data::config_bytes(configs, record));
  }
  return g;
}

nlohmann::json agreement_json(const Agreement& a) {
  return {{"count", a.count},
          {"median_relative_difference", number_or_null(a.median_relative_difference)},
          {"repeat_tau", number_or_null(a.tau)},
          {"bound", number_or_null(a.bound)}};
}

nlohmann::json model_agreement_json(const RepeatPairs& pairs, const std::vector<double>& predicted,
                                    const std::vector<int64_t>& positions) {
  std::vector<double> costs;
  for (int64_t p : positions) costs.push_back(predicted[p]);
  const RepeatPairs chosen = pairs.select(positions);
  nlohmann::json j = agreement_json(agreement(chosen));
  j["model_tau_first"] = number_or_null(kendall_tau(costs, chosen.first));
  j["model_tau_second"] = number_or_null(kendall_tau(costs, chosen.second));
  return j;
}

const std::vector<std::pair<std::string, std::string>>& noise_mean_figures() {
  static const std::vector<std::pair<std::string, std::string>> figures = {
      {"all", "repeat_tau"}, {"all", "bound"}, {"fast", "repeat_tau"}, {"fast", "bound"}};
  return figures;
}

const std::vector<std::pair<std::string, std::string>>& noise_model_mean_figures() {
  static const std::vector<std::pair<std::string, std::string>> figures = {
      {"all", "model_tau_first"},
      {"all", "model_tau_second"},
      {"fast", "model_tau_first"},
      {"fast", "model_tau_second"}};
  return figures;
}

nlohmann::json noise_means(const nlohmann::json& graphs) {
  // The figures of every graph as a metric table (NaN where undefined), averaged by
  // fill_means (the field's metrics average per graph too); the JSON groups them back as
  // {group: {name: {mean, graphs}}}.
  std::vector<std::vector<std::string>> paths;
  for (const auto& [group, name] : noise_mean_figures()) paths.push_back({group, name});
  const bool model = std::any_of(graphs.begin(), graphs.end(),
                                 [](const nlohmann::json& g) { return g.contains("model"); });
  if (model) {
    for (const auto& [group, name] : noise_model_mean_figures())
      paths.push_back({"model", group, name});
  }
  MetricTable table;
  table.metric_names.resize(paths.size());
  for (const auto& g : graphs) {
    std::vector<double>& row = table.rows.emplace_back();
    for (const auto& path : paths) {
      const nlohmann::json* value = find_number(g, path);
      row.push_back(value != nullptr ? value->get<double>()
                                     : std::numeric_limits<double>::quiet_NaN());
    }
  }
  fill_means(table);
  nlohmann::json means;
  for (size_t m = 0; m < paths.size(); ++m) {
    nlohmann::json::json_pointer at;
    for (const std::string& key : paths[m]) at /= key;
    means[at] = {{"mean", number_or_null(table.means[m])}, {"graphs", table.counts[m]}};
  }
  return means;
}

nlohmann::json noise_report(const NoiseOptions& o) {
  data::LoadOptions load;
  load.merge_duplicates = false;  // the repeats are what this analysis reads
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
        graphs.push_back(repeated_graph(graph, configs, source, o));
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
                        {"all", agreement_json(agreement(g.pairs))},
                        {"fast", agreement_json(agreement(g.pairs.select(g.fast)))}};
    if (!g.model.is_null()) j["model"] = g.model;
    report["graphs"].push_back(j);
  }
  if (graphs.size() > 1) report["mean"] = noise_means(report["graphs"]);
  return report;
}

}  // namespace graphcost::eval
