// A search over a space given from Python (graphcost.kernel_tuner builds it from Kernel Tuner's
// Searchspace) with graphcost's strategies (src/tune: tune::run_strategy, the entry point for
// callers outside the CLI), measuring through a Python callable: the campaign loop is src/tune's,
// the measurements are the caller's.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <pybind11/stl.h>

#include "core/error.h"
#include "data/device_table.h"
#include "tune/model_guided_search.h"
#include "tune/strategies.h"
#include "tune/transfer.h"
#include "python/src/bindings.h"

namespace graphcost::python {

namespace {

// A measurement from what measure(config index) returned: a positive finite time, or None (or
// anything not a positive finite number) for a failed configuration. An exception the callable
// raises (Kernel Tuner's StopCriterionReached when its budget or time limit is spent) ends the
// campaign and reaches the caller unchanged.
tune::MeasureCallback python_measure(const py::function& measure) {
  return [&measure](int64_t config) {
    py::gil_scoped_acquire acquire;
    const py::object value = measure(config);
    tune::Measurement m;
    m.failed = value.is_none();
    if (!m.failed) m.time = value.cast<double>();  // tune::CallbackMeasurer checks it
    return m;
  };
}

// The options of each strategy by name, as `graphcost tune`'s flags without the dashes, read
// from JSON with unknown keys refused.
class OptionReader {
 public:
  OptionReader(const nlohmann::json& j, std::string strategy)
      : j_(j), strategy_(std::move(strategy)) {}

  template <typename T>
  void read(const char* key, T& out) {
    known_.push_back(key);
    if (!j_.contains(key)) return;
    try {
      out = j_.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
      throw Error("strategy_options", key, "wrong type: " + j_.at(key).dump());
    }
  }

  // After every read: a key no read named is an Error listing the strategy's options.
  void refuse_unknown() const {
    for (auto& [key, _] : j_.items()) {
      if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
      std::string list;
      for (const std::string& v : known_) list += (list.empty() ? "" : ", ") + v;
      throw Error("strategy_options", key,
                  "unknown option for strategy " + strategy_ + " (valid: " +
                      (list.empty() ? "none" : list) + ")");
    }
  }

 private:
  const nlohmann::json& j_;
  std::string strategy_;
  std::vector<std::string> known_;
};

// The strategies: src/tune's (tune::strategy_names(): random, genetic, bo, and "model", the
// default model-guided search, which is bo) and the neural ranker with MC dropout ("neural"),
// which `graphcost tune` builds itself as well.
std::vector<std::string> strategy_list() {
  std::vector<std::string> names = tune::strategy_names();
  names.push_back("neural");
  return names;
}

// Options of the bo strategy, and where its prior comes from: a Kernel Tuner cache or folder of
// the same kernel on other devices (pretrained), the target's device named by `device`.
struct PriorSource {
  std::string pretrained;
  std::string devices;  // a device table file extending the built-in one
  std::string device;   // the target device's name ("" : the space's name)
  std::string split;
};

void read_bayesian(OptionReader& r, tune::BayesianOptions& b, PriorSource& prior) {
  r.read("initial", b.initial);
  r.read("members", b.ensemble.members);
  r.read("rounds", b.ensemble.trees.rounds);
  r.read("max_depth", b.ensemble.trees.max_depth);
  r.read("calibrate", b.ensemble.calibrate);
  r.read("parents", b.parents);
  r.read("crossovers", b.crossovers);
  r.read("random_candidates", b.random_candidates);
  r.read("explore", b.explore);
  r.read("warp", b.warp);
  r.read("radius", b.radius);
  r.read("greedy", b.greedy);
  r.read("threads", b.ensemble.trees.threads);
  r.read("pretrained", prior.pretrained);
  r.read("devices", prior.devices);
  r.read("device", prior.device);
  r.read("split", prior.split);
}

std::string letters_and_digits(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(c));
  }
  return out;
}

// As `graphcost tune --pretrained`: the other devices' records of the kernel (never the target
// itself, by its device name) train a prior for the target.
tune::TransferPrior fit_prior(const PriorSource& source, const tune::SearchSpace& space,
                              const xgb::TreeOptions& trees) {
  const data::DeviceTable table = data::DeviceTable::with_file(source.devices);
  const std::string target = source.device.empty() ? space.name : source.device;
  // Kernel Tuner names a device ("NVIDIA RTX A4000"), graphcost a cache's graph after its kernel
  // and device ("convolution_kernel_NVIDIA_RTX_A4000"): a source whose name holds the target's
  // device name (letters and digits, case ignored, as DeviceTable::find compares) is the target.
  std::vector<tune::PriorSpace> sources;
  const std::string key = letters_and_digits(target);
  for (tune::PriorSpace& p : tune::load_prior_spaces(source.pretrained, source.split, "", table)) {
    if (key.empty() || letters_and_digits(p.space.name).find(key) == std::string::npos)
      sources.push_back(std::move(p));
  }
  check_data(!sources.empty(), source.pretrained, "pretrained",
             "no cache other than the target device '" + target + "' to learn a prior from");
  const data::DeviceProperties* device = table.find(target);
  if (device == nullptr) {
    std::fprintf(stderr,
                 "graphcost: warning: no device in the table matches '%s'; its properties are "
                 "unknown to the prior (give strategy option devices=FILE)\n",
                 target.c_str());
  }
  return tune::fit_transfer_prior(sources, space, device, trees);
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

  const std::vector<std::string> names_known = strategy_list();
  if (std::find(names_known.begin(), names_known.end(), strategy) == names_known.end()) {
    std::string valid;
    for (const std::string& n : names_known) valid += (valid.empty() ? "" : ", ") + n;
    throw Error("tune", "strategy", "unknown strategy '" + strategy + "' (valid: " + valid + ")");
  }
  const nlohmann::json options = nlohmann::json::parse(options_json);
  OptionReader reader(options, strategy);
  tune::StrategyOptions strategy_options;
  PriorSource prior;
  tune::ModelGuidedOptions neural;
  if (strategy == "genetic") {
    reader.read("population", strategy_options.genetic.population);
    reader.read("tournament", strategy_options.genetic.tournament);
    reader.read("mutation", strategy_options.genetic.mutation);
  } else if (strategy == "bo" || strategy == "model") {
    read_bayesian(reader, strategy_options.bayesian, prior);
  } else if (strategy == "neural") {
    reader.read("initial", neural.initial);
    reader.read("hidden", neural.hidden);
    reader.read("dropout", neural.dropout);
    reader.read("train_steps", neural.train_steps);
    reader.read("lr", neural.lr);
    reader.read("slate_size", neural.slate_size);
    reader.read("mc_samples", neural.mc_samples);
    reader.read("kappa", neural.kappa);
    reader.read("pretrained", neural.pretrained);
  }
  reader.refuse_unknown();
  const tune::MeasureCallback measure_one = python_measure(measure);
  tune::CampaignResult result;
  {
    py::gil_scoped_release release;
    if (strategy == "neural") {
      const data::ConfigView view = table.view();
      tune::ModelGuidedStrategy s(neural, graph, view);
      tune::CallbackMeasurer measurer(measure_one);
      result = tune::run_campaign(space, s, measurer, budget, batch, seed);
    } else {
      if (!prior.pretrained.empty())
        strategy_options.prior = fit_prior(prior, space, strategy_options.bayesian.ensemble.trees);
      result = tune::run_strategy(strategy, space, measure_one, budget, batch, seed,
                                  strategy_options);
    }
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
  m.attr("strategies") = strategy_list();
  m.def("default_batch", &tune::default_batch, py::arg("strategy"),
        "Configurations the strategy proposes per round unless told (graphcost tune --batch 0)");
}

}  // namespace graphcost::python
