// A search over a space given from Python (graphcost.kernel_tuner builds it from Kernel Tuner's
// Searchspace) with graphcost's strategies (src/tune), measuring through a Python callable: the
// campaign loop is tune::run_campaign's, the measurements are the caller's.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "core/error.h"
#include "tune/campaign.h"
#include "tune/genetic_search.h"
#include "tune/model_guided_search.h"
#include "python/src/bindings.h"

namespace graphcost::python {

namespace {

// Measures by calling measure(config index): a positive finite time, or None (or anything not a
// positive finite number) for a failed configuration. An exception the callable raises (Kernel
// Tuner's StopCriterionReached when its budget or time limit is spent) ends the campaign and
// reaches the caller unchanged.
class CallbackMeasurer : public tune::Measurer {
 public:
  explicit CallbackMeasurer(py::function measure) : measure_(std::move(measure)) {}
  tune::Measurement measure(int64_t config) override {
    py::gil_scoped_acquire acquire;
    const py::object value = measure_(config);
    tune::Measurement m;
    m.config = config;
    m.failed = true;
    if (!value.is_none()) {
      const double time = value.cast<double>();
      if (std::isfinite(time) && time > 0) {
        m.failed = false;
        m.time = time;
      }
    }
    return m;
  }

 private:
  py::function measure_;
};

// The options of each strategy by name, read from JSON with unknown keys refused.
template <typename T>
void read_option(const nlohmann::json& j, const char* key, T& out) {
  if (!j.contains(key)) return;
  try {
    out = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error("strategy_options", key, "wrong type: " + j.at(key).dump());
  }
}

void refuse_unknown(const nlohmann::json& j, const std::string& strategy,
                    const std::vector<std::string>& valid) {
  for (auto& [key, _] : j.items()) {
    if (std::find(valid.begin(), valid.end(), key) != valid.end()) continue;
    std::string list;
    for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
    throw Error("strategy_options", key,
                "unknown option for strategy " + strategy + " (valid: " +
                    (list.empty() ? "none" : list) + ")");
  }
}

const std::vector<std::string> kStrategies = {"random", "genetic", "model"};

std::unique_ptr<tune::Strategy> make_strategy(const std::string& name, const nlohmann::json& j,
                                              const data::Graph& graph,
                                              const data::ConfigView& configs) {
  if (name == "random") {
    refuse_unknown(j, name, {});
    return std::make_unique<tune::RandomStrategy>();
  }
  if (name == "genetic") {
    refuse_unknown(j, name, {"population", "tournament", "mutation"});
    tune::GeneticOptions o;
    read_option(j, "population", o.population);
    read_option(j, "tournament", o.tournament);
    read_option(j, "mutation", o.mutation);
    return std::make_unique<tune::GeneticStrategy>(o);
  }
  if (name == "model") {
    refuse_unknown(j, name, {"initial", "hidden", "dropout", "train_steps", "lr", "slate_size",
                             "mc_samples", "kappa", "pretrained"});
    tune::ModelGuidedOptions o;
    read_option(j, "initial", o.initial);
    read_option(j, "hidden", o.hidden);
    read_option(j, "dropout", o.dropout);
    read_option(j, "train_steps", o.train_steps);
    read_option(j, "lr", o.lr);
    read_option(j, "slate_size", o.slate_size);
    read_option(j, "mc_samples", o.mc_samples);
    read_option(j, "kappa", o.kappa);
    read_option(j, "pretrained", o.pretrained);
    return std::make_unique<tune::ModelGuidedStrategy>(o, graph, configs);
  }
  std::string valid;
  for (const std::string& s : kStrategies) valid += (valid.empty() ? "" : ", ") + s;
  throw Error("tune", "strategy", "unknown strategy '" + name + "' (valid: " + valid + ")");
}

// One campaign: the space is n configurations with a feature row each (features (n, w), the
// model's input) and a level per parameter (levels (n, p), for the genetic search's distances).
py::dict run_search(const py::object& features, const py::object& levels,
                    const std::vector<std::string>& names,
                    const std::vector<std::vector<std::string>>& labels,
                    const std::vector<bool>& ordered, const py::function& measure, int64_t budget,
                    int64_t batch, uint64_t seed, const std::string& strategy,
                    const std::string& options_json, const py::object& node_feat) {
  const io::NpyArray f = npy_from_numpy(features, "search", "features");
  const io::NpyArray l = npy_from_numpy(levels, "search", "levels");
  check_data(f.shape.size() == 2, "search", "features",
             "expected (configurations, columns), got shape " + io::shape_text(f.shape));
  const int64_t n = f.shape[0];
  const int64_t p = static_cast<int64_t>(names.size());
  check_data(l.shape.size() == 2 && l.shape[0] == n && l.shape[1] == p, "search", "levels",
             "expected shape (" + std::to_string(n) + ", " + std::to_string(p) + "), got " +
                 io::shape_text(l.shape));
  check_data(static_cast<int64_t>(labels.size()) == p && static_cast<int64_t>(ordered.size()) == p,
             "search", "labels", "one list of labels and one ordered flag per parameter");
  check_data(n > 0, "search", "features", "an empty search space");

  data::Graph graph;  // the kernel: one node, whose features the caller may give
  graph.name = "kernel";
  graph.num_nodes = 1;
  graph.node_features = {0.0f};
  if (!node_feat.is_none()) {
    const io::NpyArray nf = npy_from_numpy(node_feat, "search", "node_feat");
    check_data(nf.shape.size() == 1 && nf.shape[0] > 0, "search", "node_feat",
               "expected a non-empty 1-D array, got shape " + io::shape_text(nf.shape));
    graph.node_features = nf.to_vector<float>("search: node_feat");
  }
  graph.feature_width = static_cast<int64_t>(graph.node_features.size());
  graph.opcodes = {0};
  graph.build_adjacency();
  data::ConfigTable table;
  table.kind = data::ConfigKind::Tile;
  table.count = n;
  table.width = f.shape[1];
  table.tile = f.to_vector<float>("search: features");

  tune::SearchSpace space;
  space.name = graph.name;
  space.count = n;
  for (int64_t k = 0; k < p; ++k) space.parameters.push_back({names[k], labels[k], ordered[k]});
  space.levels = l.to_vector<int32_t>("search: levels");
  for (int32_t v : space.levels) check_data(v >= 0, "search", "levels", "a negative level");

  const nlohmann::json options = nlohmann::json::parse(options_json);
  CallbackMeasurer measurer(measure);
  tune::CampaignResult result;
  {
    py::gil_scoped_release release;
    const data::ConfigView view = table.view();
    std::unique_ptr<tune::Strategy> s = make_strategy(strategy, options, graph, view);
    result = tune::run_campaign(space, *s, measurer, budget, batch, seed);
  }
  py::list measured;
  for (const tune::Measurement& m : result.measurements)
    measured.append(py::make_tuple(m.config, m.failed, m.time));
  py::dict d;
  d["measurements"] = measured;
  d["best_so_far"] = result.best_so_far;
  d["failed"] = result.failed;
  return d;
}

}  // namespace

void bind_tune(py::module_& m) {
  m.def("_run_search", &run_search, py::arg("features"), py::arg("levels"), py::arg("names"),
        py::arg("labels"), py::arg("ordered"), py::arg("measure"), py::arg("budget"),
        py::arg("batch"), py::arg("seed"), py::arg("strategy"), py::arg("options_json"),
        py::arg("node_feat") = py::none());
  m.attr("strategies") = kStrategies;
}

}  // namespace graphcost::python
