// graphcost score: the field's metrics of Kaggle submission files against a split's measured
// runtimes, per collection and combined, and paired comparisons of several files.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "core/progress.h"
#include "eval/metrics.h"
#include "eval/paired.h"
#include "eval/submission.h"
#include "eval/summary.h"
#include "io/collection_readers.h"

namespace graphcost::cli {

namespace {

struct ScoreOptions {
  std::vector<std::string> submissions;  // the first is the base of the comparisons
  // data, split, devices, device_name
  data::DataOptions source = data::command_data_options("valid");  // data, split
  int64_t groups = 1;
  uint64_t seed = 0;
  bool json = false;
};

// One submission file: its rankings by ID.
struct Submission {
  std::string path;
  std::map<std::string, std::vector<int64_t>> rankings;
};

// One collection scored for every submission: per submission, the metric table and the unit
// values the paired comparison uses (layout: Kendall tau per graph or per group of a graph's
// configurations; tile: the Kaggle tile score per kernel, the table's tile_score column).
struct CollectionScores {
  std::string id;
  std::vector<eval::MetricTable> tables;
  std::vector<std::vector<double>> units;
};

// The metric a collection is scored by in the competition.
std::string score_metric(data::ConfigKind kind) {
  return kind == data::ConfigKind::Tile ? "tile_score" : "kendall_tau";
}

double metric_mean(const eval::MetricTable& table, const std::string& name) {
  auto it = std::find(table.metric_names.begin(), table.metric_names.end(), name);
  return it == table.metric_names.end() ? std::numeric_limits<double>::quiet_NaN()
                                        : table.means[it - table.metric_names.begin()];
}

// Tile metrics from a ranking that lists only the top configurations (Kaggle's files list 5):
// top-1 and top-5 error and the Kaggle tile score, each over the first min(K, listed) entries.
eval::MetricTable tile_table(const std::vector<eval::GraphScores>& graphs,
                             const std::vector<int64_t>& listed) {
  eval::MetricTable table;
  table.metric_names = {"top1_error", "top5_error", "tile_score"};
  for (size_t g = 0; g < graphs.size(); ++g) {
    const auto& s = graphs[g];
    const double top1 = eval::top_k_error(s.predicted, s.measured, std::min<int64_t>(1, listed[g]));
    const double top5 = eval::top_k_error(s.predicted, s.measured, std::min<int64_t>(5, listed[g]));
    table.graph_names.push_back(s.name);
    table.rows.push_back({top1, top5, 1.0 - top5});
  }
  eval::fill_means(table);
  return table;
}

// Scores one collection of the split for every submission. Every graph of the split needs a row
// in every submission and every row of the collection a graph.
CollectionScores score_collection_files(const ScoreOptions& o,
                                        const std::vector<Submission>& submissions,
                                        const std::string& collection, int64_t expected_graphs) {
  const data::CollectionId id = data::CollectionId::parse(collection);
  data::LoadOptions load = o.source.unpruned_load_options();
  load.merge_duplicates = false;  // submission indices are the file's own
  const size_t k = submissions.size();
  std::vector<std::vector<eval::GraphScores>> graphs(k);
  std::vector<std::vector<int64_t>> listed(k);
  CollectionScores out{collection, {}, std::vector<std::vector<double>>(k)};
  Progress progress("score " + collection, expected_graphs, "graphs");
  int64_t seen = 0;
  io::for_each_graph(
      o.source.data, id, o.source.split, load, 2,
      [&](const data::Graph& graph, const data::ConfigView& configs, const std::string& source) {
        const std::string row_id = eval::submission_id(collection, graph.name);
        check_data(configs.has_runtimes(), source, "config_runtime",
                   "no measured runtimes to score against (a test split?)");
        const std::vector<double> measured(configs.runtimes, configs.runtimes + configs.count);
        std::vector<std::vector<int64_t>> groups;
        if (id.kind == data::ConfigKind::Layout) {
          groups = eval::random_groups(configs.count, std::min<int64_t>(o.groups, configs.count),
                                       o.seed);
        }
        for (size_t s = 0; s < k; ++s) {
          auto it = submissions[s].rankings.find(row_id);
          check_data(it != submissions[s].rankings.end(), submissions[s].path, row_id,
                     "no row for this graph of " + source);
          eval::GraphScores scores{graph.name,
                                   eval::costs_from_ranking(id.kind, it->second, configs.count,
                                                            submissions[s].path + ": " + row_id),
                                   measured};
          if (id.kind == data::ConfigKind::Tile) {
            listed[s].push_back(static_cast<int64_t>(it->second.size()));
          } else {
            for (const auto& group : groups) {
              std::vector<double> predicted, runtimes;
              for (int64_t j : group) {
                predicted.push_back(scores.predicted[j]);
                runtimes.push_back(measured[j]);
              }
              out.units[s].push_back(eval::kendall_tau(predicted, runtimes));
            }
          }
          graphs[s].push_back(std::move(scores));
        }
        progress.update(++seen);
      });
  progress.finish();
  check_data(seen == expected_graphs, submissions[0].path, collection,
             "ranks " + std::to_string(expected_graphs) + " graphs but the " + o.source.split +
                 " split of " + o.source.data + " holds " + std::to_string(seen));
  for (size_t s = 0; s < k; ++s) {
    if (id.kind == data::ConfigKind::Tile) {
      out.tables.push_back(tile_table(graphs[s], listed[s]));
      for (const auto& row : out.tables.back().rows) out.units[s].push_back(row[2]);  // tile_score
    } else {
      out.tables.push_back(eval::evaluate(id.kind, graphs[s]));
    }
  }
  return out;
}

void run_score(const ScoreOptions& o) {
  std::vector<Submission> submissions;
  for (const std::string& path : o.submissions) {
    Submission s{path, {}};
    for (auto& row : eval::read_submission(path)) s.rankings[row.id] = std::move(row.top_configs);
    check_data(!s.rankings.empty(), path, "", "no rows to score");
    submissions.push_back(std::move(s));
  }
  // The collections and graph counts come from the first file; the others must rank the same IDs.
  std::map<std::string, int64_t> graphs_of;
  for (const auto& [row_id, ranking] : submissions[0].rankings) {
    ++graphs_of[eval::split_submission_id(row_id, submissions[0].path).first];
  }
  for (size_t s = 1; s < submissions.size(); ++s) {
    for (const auto& [row_id, ranking] : submissions[0].rankings) {
      check_data(submissions[s].rankings.count(row_id) == 1, submissions[s].path, row_id,
                 "missing (" + submissions[0].path + " ranks it)");
    }
    for (const auto& [row_id, ranking] : submissions[s].rankings) {
      check_data(submissions[0].rankings.count(row_id) == 1, submissions[s].path, row_id,
                 "not in " + submissions[0].path + " (every file must rank the same graphs)");
    }
  }
  std::vector<CollectionScores> collections;
  for (const data::CollectionId& id : data::CollectionId::all()) {
    auto it = graphs_of.find(id.str());
    if (it != graphs_of.end())
      collections.push_back(score_collection_files(o, submissions, it->first, it->second));
  }
  const bool all_five = collections.size() == data::CollectionId::all().size();

  nlohmann::json report = {{"split", o.source.split}, {"data", o.source.data}, {"groups", o.groups}};
  for (size_t s = 0; s < submissions.size(); ++s) {
    nlohmann::json file = {{"file", submissions[s].path}};
    double combined = 0;
    if (!o.json) std::printf("%s (%s split)\n", submissions[s].path.c_str(), o.source.split.c_str());
    for (const CollectionScores& c : collections) {
      const eval::MetricTable& table = c.tables[s];
      nlohmann::json j = eval::to_json(table);
      const data::ConfigKind kind = data::CollectionId::parse(c.id).kind;
      const double score = metric_mean(table, score_metric(kind));
      j["score"] = std::isnan(score) ? nlohmann::json() : nlohmann::json(score);
      file["collections"][c.id] = j;
      combined += score;
      if (!o.json) {
        std::string line =
            "  " + c.id + ": " + std::to_string(table.graph_names.size()) + " graphs";
        for (size_t m = 0; m < table.metric_names.size(); ++m) {
          line += ", " + table.metric_names[m] + " " + eval::format_metric(table.means[m]);
        }
        std::printf("%s\n", line.c_str());
      }
    }
    if (all_five) {
      combined /= static_cast<double>(collections.size());
      file["kaggle_score"] = std::isnan(combined) ? nlohmann::json() : nlohmann::json(combined);
      if (!o.json)
        std::printf("  kaggle score (mean of the five collections): %s\n",
                    eval::format_metric(combined).c_str());
    }
    report["submissions"].push_back(file);
  }
  for (size_t s = 1; s < submissions.size(); ++s) {
    for (const CollectionScores& c : collections) {
      const eval::PairedComparison p = eval::compare_paired(c.units[0], c.units[s]);
      const std::string metric = score_metric(data::CollectionId::parse(c.id).kind);
      report["comparisons"].push_back({{"file", submissions[s].path},
                                       {"against", submissions[0].path},
                                       {"collection", c.id},
                                       {"metric", metric},
                                       {"units", p.units},
                                       {"mean_difference", p.mean_difference},
                                       {"standard_error", p.standard_error},
                                       {"wins", p.wins},
                                       {"losses", p.losses}});
      if (!o.json) {
        std::printf(
            "%s against %s, %s: %s %+.4f, standard error %s over %lld units, wins %lld, losses "
            "%lld\n",
            submissions[s].path.c_str(), submissions[0].path.c_str(), c.id.c_str(), metric.c_str(),
            p.mean_difference, eval::format_metric(p.standard_error).c_str(),
            static_cast<long long>(p.units), static_cast<long long>(p.wins),
            static_cast<long long>(p.losses));
      }
    }
  }
  if (o.json) std::printf("%s\n", report.dump(2).c_str());
}

}  // namespace

void add_score_command(CLI::App& app) {
  auto o = std::make_shared<ScoreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "score",
      "Score Kaggle submission files against a split's measured runtimes (the field's "
      "metrics per collection, the combined score, paired comparisons)");
  cmd->add_option("submissions", o->submissions,
                  "submission CSVs (from predict or any tool); with several, each is compared "
                  "with the first")
      ->required();
  add_data_options(cmd, o->source, {"data", "split", "devices", "device_name"},
                   {{"split", "split whose runtimes to score against"}})
      .at("data")
      ->required();
  cmd->add_option("--groups", o->groups,
                  "layout: compare files over this many random groups of each graph's "
                  "configurations (1 = per graph); tile compares per kernel")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the grouping")
      ->check(unsigned_64())
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "one JSON object on stdout");
  cmd->callback([o] { run_score(*o); });
}

}  // namespace graphcost::cli
