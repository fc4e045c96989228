// Stacked runs: loading, scoring and fitting (docs/stack.md).
#include "infer/stack.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/random.h"
#include "io/collection_readers.h"
#include "run/run_folder.h"
#include "stack/training_graphs.h"

namespace graphcost::infer {

namespace fs = std::filesystem;

namespace {

// The feature columns: one per member run, and one for the other devices when present.
int64_t feature_width(const StackModel& stack) {
  return static_cast<int64_t>(stack.members.size()) + (stack.other_devices ? 1 : 0);
}

// Every graph a member trained on, or nullopt when its config.json records no data or that data
// is gone; `source` is what it records.
std::optional<std::vector<std::string>> trained_graphs(
    const std::string& member_dir, std::map<std::string, std::vector<std::string>>& listed,
    std::optional<data::DataOptions>& source) {
  source = stack::training_source(run::RunFolder(member_dir).read_config());
  if (!source || !fs::exists(source->data)) return std::nullopt;
  std::string key = source->data + "\n" + source->collection + "\n" + source->split + "\n" +
                    (source->skip_invalid ? "1" : "0");
  for (const std::string& name : source->exclude) key += "\n" + name;
  auto found = listed.find(key);
  if (found == listed.end()) found = listed.emplace(key, stack::graph_names(*source)).first;
  return found->second;
}

// A seeded sample of at most `most` of a graph's configurations (all when most is 0), sorted.
std::vector<int64_t> sample_configs(int64_t count, int64_t most, uint64_t seed, uint64_t stream) {
  std::vector<int64_t> indices(static_cast<size_t>(count));
  std::iota(indices.begin(), indices.end(), 0);
  if (most > 0 && count > most) {
    Random random = random_stream(seed, stream);
    random.shuffle(indices);
    indices.resize(static_cast<size_t>(most));
    std::sort(indices.begin(), indices.end());
  }
  return indices;
}

// --refit-member: one run per --member, in the same order, of the same kind (neural or XGBoost),
// collection and pruning; the written stack scores with them. No stack as a member.
void check_refit_members(const StackOptions& o, const std::vector<TrainedModel>& runs,
                         const data::CollectionId& id) {
  check_data(o.refit_members.size() == o.members.size(), "stack", "--refit-member",
             "give one per --member, in the same order (" + std::to_string(o.members.size()) +
                 " --member, " + std::to_string(o.refit_members.size()) + " --refit-member)");
  for (const std::string& dir : o.refit_members)
    check_data(fs::is_directory(dir), dir, "", "no such run folder (--refit-member)");
  std::string collection;
  const std::vector<TrainedModel> refits = load_runs(o.refit_members, collection);
  check_runs_kind(refits, o.refit_members, id);
  for (size_t m = 0; m < refits.size(); ++m) {
    const std::string kind = run_kind(refits[m]), counterpart = run_kind(runs[m]);
    check_data(kind == counterpart, o.refit_members[m], "model_type",
               "a run of kind " + kind + ", but the --member it stands for (" + o.members[m] +
                   ") is of kind " + counterpart);
    check_data(
        refits[m].prune_hops == runs[m].prune_hops && refits[m].prune_seeds == runs[m].prune_seeds,
        o.refit_members[m], "prune_hops",
        "pruned otherwise than the --member it stands for (" + o.members[m] + ")");
  }
}

// The other devices' member from a run's training graphs (its config.json's data, split and
// exclusions): each graph's measured times are a reference device.
stack::OtherDevices other_devices_of(const std::string& member_dir, const data::CollectionId& id) {
  const auto source = stack::training_source(run::RunFolder(member_dir).read_config());
  check_data(source && fs::exists(source->data), member_dir, "data",
             "--member-other-devices reads this run's training graphs as the other devices, but "
             "its config.json names no data that exists");
  const data::LoadOptions load = source->unpruned_load_options();
  return stack::OtherDevices::build(*io::open_collection(source->data, id, source->split, load));
}

}  // namespace

void load_stack(TrainedModel& run, const run::RunConfig& config, const std::string& run_dir) {
  const run::RunFolder folder(run_dir);
  const std::string where = folder.config_path();
  check_data(config.options.contains("stack") && config.options["stack"].is_object(), where,
             "stack", "missing (a stacked run's members and meta-learner)");
  const nlohmann::json& j = config.options["stack"];
  auto stack = std::make_shared<StackModel>();
  const bool paths = j.contains("members") && j["members"].is_array() && !j["members"].empty() &&
                     std::all_of(j["members"].begin(), j["members"].end(),
                                 [](const nlohmann::json& p) { return p.is_string(); });
  check_data(paths, where, "stack.members", "expected a non-empty array of run folders");
  stack->member_paths = j["members"].get<std::vector<std::string>>();
  for (const std::string& path : stack->member_paths) {
    const fs::path member = fs::path(path).is_absolute() ? fs::path(path) : fs::path(run_dir) / path;
    check_data(fs::is_directory(member), where, "stack.members",
               "member " + member.string() + " is not a run folder (moved or removed?)");
    stack->members.push_back(load_run(member.string()));
    check_data(!stack->members.back().stack, where, "stack.members",
               "member " + member.string() + " is itself a stack");
  }
  const bool other_devices = j.contains("other_devices") && j["other_devices"].is_boolean() &&
                             j["other_devices"].get<bool>();
  if (other_devices) {
    const std::string table = folder.other_devices_path();
    nlohmann::json parsed;
    try {
      parsed = nlohmann::json::parse(read_file(table));
    } catch (const nlohmann::json::exception&) {
      throw Error(table, "", "not valid JSON (truncated or damaged?)");
    }
    stack->other_devices = stack::OtherDevices::from_json(parsed, table);
  }
  int threads = 0;
  for (const TrainedModel& member : stack->members)
    if (member.xgb) threads = member.xgb->options().threads;
  stack->meta = stack::MetaLearner::load(j, folder.meta_model_path(), where, threads);
  check_data(stack->meta.width() == feature_width(*stack), where, "stack.members_width",
             std::to_string(stack->meta.width()) + " columns, but the stack has " +
                 std::to_string(feature_width(*stack)) + " members");
  run.stack = std::move(stack);
}

std::vector<double> stack_scores(const StackModel& stack,
                                 const std::vector<std::vector<double>>& member_scores,
                                 const std::string& graph_name, const data::ConfigView& configs,
                                 const std::vector<int64_t>& indices) {
  std::vector<std::vector<double>> columns = member_scores;
  if (stack.other_devices) columns.push_back(stack.other_devices->score(graph_name, configs, indices));
  return stack.meta.score(stack::stack_features(columns));
}

FittedStack fit_stack(const StackOptions& o) {
  check_data(!o.members.empty(), "stack", "--member", "at least one member run is needed");
  for (const std::string& dir : o.members)
    check_data(fs::is_directory(dir), dir, "", "no such run folder (--member)");
  std::string trained_on;
  std::vector<TrainedModel> runs = load_runs(o.members, trained_on);
  for (size_t m = 0; m < runs.size(); ++m)
    check_data(!runs[m].stack, o.members[m], "model_type", "a stacked run cannot be a member");
  FittedStack out;
  const std::string collection = !o.source.collection.empty() ? o.source.collection : trained_on;
  check_data(!collection.empty(), "stack", "--collection",
             "needed (no member names the collection it trained on)");
  out.id = data::CollectionId::parse(collection);
  check_runs_kind(runs, o.members, out.id);
  data::LoadOptions load = o.source.unpruned_load_options();
  apply_run_pruning(runs, o.members, kRunPruning, load);
  out.prune_hops = runs[0].prune_hops;
  out.prune_seeds = runs[0].prune_seeds;
  out.members = o.members;
  if (!o.refit_members.empty()) {
    check_refit_members(o, runs, out.id);
    out.members = o.refit_members;
  }
  const auto fit_set = io::open_collection(o.source.data, out.id, o.source.split, load);
  std::vector<int64_t> usable;
  std::vector<std::string> fitted_names;
  for (int64_t g = 0; g < fit_set->size(); ++g) {
    const data::ConfigView configs = fit_set->configs(g);
    check_data(configs.has_runtimes(), fit_set->source(g), "",
               "no runtimes to fit the stack on (split " + o.source.split + ")");
    fitted_names.push_back(fit_set->graph(g).name);
    if (configs.count >= 2) usable.push_back(g);
  }
  // No member may have trained on a configuration the meta-learner is fitted on: its scores there
  // would be in-sample, and the meta-learner would learn to trust it too much. A graph a member
  // shares with the fitting data (one program's configurations split) is compared configuration
  // by configuration.
  std::map<std::string, std::vector<std::string>> listed;
  for (const std::string& dir : o.members) {
    std::optional<data::DataOptions> source;
    const auto trained = trained_graphs(dir, listed, source);
    if (trained) {
      const std::vector<std::string> shared = stack::shared_graphs(*trained, fitted_names);
      if (shared.empty()) continue;
      const auto seen = stack::training_configs(*source, {shared.begin(), shared.end()});
      for (int64_t g = 0; g < fit_set->size(); ++g) {
        const auto found = seen.find(fit_set->graph(g).name);
        if (found != seen.end())
          stack::check_out_of_sample(dir, found->first, found->second, fit_set->configs(g));
      }
      std::fprintf(stderr,
                   "stack: %s trained on other configurations of %zu of the graphs the stack is "
                   "fitted on (none of the fitted ones)\n",
                   dir.c_str(), shared.size());
      continue;
    }
    const std::string training_split = source ? source->split : "train";
    check_data(training_split != o.source.split, dir, "split",
               "trained on split " + training_split +
                   ", the split the stack is fitted on (its scores there are in-sample)");
    std::fprintf(stderr,
                 "stack: warning: %s: its training data is not recorded or not found, so only its "
                 "split (%s) was checked against the stack's\n",
                 dir.c_str(), training_split.c_str());
  }
  StackModel model;
  model.members = runs;
  // The other devices are the first member's training graphs (measured times, never the
  // fitted graphs: the check above holds them apart).
  if (o.other_devices) model.other_devices = other_devices_of(o.members[0], out.id);
  std::fprintf(stderr, "stack: %s %s: %zu graphs, %zu member runs%s, meta-learner %s\n",
               out.id.str().c_str(), o.source.split.c_str(), usable.size(), runs.size(),
               o.other_devices ? " + other devices" : "", o.meta.meta.c_str());
  std::vector<Scorer> scorers;
  for (TrainedModel& run : model.members) {
    scorers.emplace_back();
    scorers.back().runs = {&run};
  }
  std::vector<stack::StackGraph> graphs;
  for (int64_t g : usable) {
    const data::Graph& graph = fit_set->graph(g);
    const data::ConfigView configs = fit_set->configs(g);
    const std::vector<int64_t> indices =
        sample_configs(configs.count, o.max_configs_per_graph, o.meta.seed, static_cast<uint64_t>(g));
    std::vector<std::vector<double>> member_scores;
    for (const Scorer& scorer : scorers)
      member_scores.push_back(score_graph(scorer, graph, configs, indices, g).scores);
    if (model.other_devices) member_scores.push_back(model.other_devices->score(graph.name, configs, indices));
    stack::StackGraph rows;
    rows.name = graph.name;
    rows.features = stack::stack_features(member_scores);
    for (int64_t j : indices) rows.runtimes.push_back(configs.runtimes[j]);
    graphs.push_back(std::move(rows));
  }
  out.graphs = static_cast<int64_t>(graphs.size());
  if (graphs.size() == 1) {
    std::fprintf(stderr,
                 "stack: one graph: its configurations are dealt into %lld parts that stand in for "
                 "graphs in cross-fitting\n",
                 static_cast<long long>(o.meta.folds));
    graphs =
        stack::split_configurations(graphs[0], o.meta.folds, feature_width(model), o.meta.seed);
  }
  out.meta = stack::MetaLearner::fit(graphs, feature_width(model), o.meta);
  // Refitted, the stack ranks by the devices the first refit run trained on: the fitting
  // devices' times join the references as the refit members' data joins their training.
  out.other_devices = o.other_devices && !o.refit_members.empty()
                          ? other_devices_of(o.refit_members[0], out.id)
                          : std::move(model.other_devices);
  return out;
}

}  // namespace graphcost::infer
