// Trained runs from Python: graphcost.load (a neural or XGBoost run, or several as an ensemble),
// scoring through the inference layer predict and eval use (infer/scoring.h: load_runs,
// check_runs_kind, apply_run_pruning, score_collection, score_graph), and the field's metrics.

#include <nlohmann/json.hpp>
#include <optional>
#include <pybind11/stl.h>

#include "core/error.h"
#include "data/prune.h"
#include "data/validate.h"
#include "eval/ensemble.h"
#include "eval/metrics.h"
#include "eval/summary.h"
#include "infer/scoring.h"
#include "io/collection_readers.h"
#include "model/kernels/threads.h"
#include "python/src/bindings.h"

namespace graphcost::python {

namespace {

// One or several runs, loaded as eval and predict load them.
struct PyModel {
  std::vector<std::string> run_dirs;
  std::vector<infer::TrainedModel> runs;
  std::string collection;  // what the runs were trained on ("" when unknown)
  std::string ensemble = "mean";
};

// The scoring options (the ensemble method is the model's) and the thread count.
struct ScoreOptions : infer::ScoringOptions {
  int threads = 0;
};
const infer::ScoringOptions kScoringDefaults;

std::shared_ptr<PyModel> load(const py::object& run_dirs, const std::string& ensemble) {
  auto out = std::make_shared<PyModel>();
  if (py::isinstance<py::str>(run_dirs) || py::hasattr(run_dirs, "__fspath__")) {
    out->run_dirs.push_back(py::str(run_dirs).cast<std::string>());
  } else {
    for (const py::handle& d : run_dirs) out->run_dirs.push_back(py::str(d).cast<std::string>());
  }
  check_data(!out->run_dirs.empty(), "load", "run_dir", "no run folder given");
  out->ensemble = ensemble;
  py::gil_scoped_release release;
  out->runs = infer::load_runs(out->run_dirs, out->collection);
  if (out->runs.size() > 1) eval::check_ensemble_method(ensemble);
  return out;
}

infer::Scorer make_scorer(PyModel& model, const ScoreOptions& o) {
  infer::Scorer scorer(o, model.runs);
  scorer.ensemble = model.ensemble;
  return scorer;
}

// The pruning the runs need (predict's), as load options.
data::LoadOptions run_load_options(const PyModel& model, const data::LoadOptions& opened) {
  data::LoadOptions load = opened;
  infer::apply_run_pruning(model.runs, model.run_dirs, infer::kRunPruning, load);
  return load;
}

// A feature array given as a graph's configurations (tile (c, w), layout (c, nc, w)) replaces
// them, runtimes dropped.
void replace_configs(data::GraphRecord& record, const io::NpyArray& a) {
  const std::string& where = record.graph.name;
  data::ConfigTable& t = record.configs;
  const bool tile = t.kind == data::ConfigKind::Tile;
  const size_t rank = tile ? 2 : 3;
  const int64_t width_axis = tile ? 1 : 2;
  check_data(a.shape.size() == rank && a.shape[width_axis] == t.width &&
                 (tile || a.shape[1] == t.nodes),
             where, "configs",
             "expected configuration indices (c,) or features " +
                 std::string(tile ? "(c, " + std::to_string(t.width) + ")"
                                  : "(c, " + std::to_string(t.nodes) + ", " +
                                        std::to_string(t.width) + ")") +
                 ", got shape " + io::shape_text(a.shape));
  t.count = a.shape[0];
  t.runtimes.clear();
  t.failed.clear();
  t.default_config = -1;
  if (tile) {
    t.tile = a.to_vector<float>(where + ": configs");
  } else {
    t.layout = a.to_vector<int8_t>(where + ": configs");
  }
  data::validate_record(record);
}

// Configuration indices (a 1-D integer array) of a graph of count configurations.
std::vector<int64_t> config_indices(const io::NpyArray& a, const std::string& where,
                                    int64_t count) {
  check_data(io::dtype_is_integer(a.dtype) && a.dtype != io::DType::Bool, where, "configs",
             "a 1-D configs array holds configuration indices: expected an integer dtype, got " +
                 io::dtype_name(a.dtype));
  std::vector<int64_t> keep = a.to_vector<int64_t>(where + ": configs");
  for (int64_t j : keep) {
    check_data(j >= 0 && j < count, where, "configs",
               "configuration index " + std::to_string(j) + " outside [0, " +
                   std::to_string(count) + ")");
  }
  return keep;
}

// Scores every graph of c with the model (predict's path); spreads too with MC dropout when
// asked.
std::vector<eval::GraphScores> score(PyModel& model, const data::Collection& c,
                                     const ScoreOptions& o,
                                     std::vector<std::vector<double>>* spreads) {
  model::set_threads(o.threads);
  infer::check_runs_kind(model.runs, model.run_dirs, c.id());
  const infer::Scorer scorer = make_scorer(model, o);
  return infer::score_collection(scorer, c, 0, spreads);
}

bool same_pruning(const data::LoadOptions& a, const data::LoadOptions& b) {
  return a.prune_hops == b.prune_hops && a.prune_seed_opcodes == b.prune_seed_opcodes;
}

py::array_t<double> as_array(const std::vector<double>& v) {
  return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
}

// One graph of a collection, scored as predict scores it in that collection: graph g is stream
// g (its anchor sample and TTA groupings), so the scores are predict's bitwise. configs: None
// (all), indices, or feature rows replacing the graph's own.
py::object score_one(PyModel& model, const PyGraph& target, const py::object& configs,
                     const ScoreOptions& o, bool want_spread) {
  const PyCollection& owner = *target.owner;
  const data::Collection& c = *owner.collection;
  const int64_t g = target.index;
  std::optional<io::NpyArray> given;
  if (!configs.is_none()) given = npy_from_numpy(configs, c.graph(g).name, "configs");
  infer::GraphScoring result;
  {
    py::gil_scoped_release release;
    const data::LoadOptions want = run_load_options(model, owner.load);
    model::set_threads(o.threads);
    infer::check_runs_kind(model.runs, model.run_dirs, c.id());
    const infer::Scorer scorer = make_scorer(model, o);
    const bool pruned_right = same_pruning(want, owner.load);
    const bool indices = given && given->shape.size() == 1;
    // predict scores every graph at one OpenMP thread (model::run_apart; a product summed in
    // other chunks rounds otherwise): a graph alone is scored as it would be there.
    const model::OneIntraOpThread one_thread;
    if (pruned_right && !(given && !indices)) {
      std::vector<int64_t> keep;
      if (indices) keep = config_indices(*given, c.graph(g).name, c.configs(g).count);
      result = infer::score_graph(scorer, c.graph(g), c.configs(g), keep, g);
    } else {
      // The record as the runs' pruning makes it, with the given configurations.
      data::GraphRecord r = copy_record(c, g);
      if (!pruned_right)
        r = data::prune_to_config_neighbourhood(r, want.prune_hops, want.prune_seed_opcodes);
      std::vector<int64_t> keep;
      if (indices) {
        keep = config_indices(*given, r.graph.name, r.configs.count);
      } else if (given) {
        replace_configs(r, *given);
      }
      result = infer::score_graph(scorer, r.graph, r.configs.view(), keep, g);
    }
  }
  if (want_spread) return py::make_tuple(as_array(result.scores), as_array(result.spread));
  return as_array(result.scores);
}

// Every graph of a collection, as predict scores it (re-opened with the runs' pruning when it was
// opened otherwise, or pruned in memory when it was built from arrays).
py::object score_all(PyModel& model, const PyCollection& owner, const ScoreOptions& o,
                     bool want_spread) {
  std::vector<eval::GraphScores> scores;
  std::vector<std::vector<double>> spreads;
  {
    py::gil_scoped_release release;
    const data::LoadOptions want = run_load_options(model, owner.load);
    std::vector<std::vector<double>>* sp = want_spread ? &spreads : nullptr;
    if (same_pruning(want, owner.load)) {
      scores = score(model, *owner.collection, o, sp);
    } else if (!owner.path.empty()) {
      auto reopened = io::open_collection(owner.path, owner.id, owner.split, want);
      scores = score(model, *reopened, o, sp);
    } else {
      std::vector<data::GraphRecord> records;
      for (int64_t i = 0; i < owner.collection->size(); ++i) {
        records.push_back(data::prune_to_config_neighbourhood(
            copy_record(*owner.collection, i), want.prune_hops, want.prune_seed_opcodes));
      }
      data::MemoryCollection copy(owner.id, owner.split, std::move(records));
      scores = score(model, copy, o, sp);
    }
  }
  py::list out;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (want_spread) {
      out.append(py::make_tuple(as_array(scores[i].predicted), as_array(spreads[i])));
    } else {
      out.append(as_array(scores[i].predicted));
    }
  }
  return out;
}

// What the model scores for target (a Graph or a Collection).
py::object score_target(PyModel& model, const py::object& target, const py::object& configs,
                        const ScoreOptions& o, bool want_spread) {
  if (py::isinstance<PyGraph>(target))
    return score_one(model, target.cast<const PyGraph&>(), configs, o, want_spread);
  if (!py::isinstance<PyCollection>(target))
    throw py::type_error("expected a graphcost.Graph or graphcost.Collection");
  if (!configs.is_none())
    throw py::type_error("configs applies to one graph, not to a collection");
  return score_all(model, target.cast<const PyCollection&>(), o, want_spread);
}

py::object json_to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

// eval's table: the kind's metrics per graph and their means, as `eval --json` prints them.
py::object evaluate(PyModel& model, const std::string& data, const std::string& split,
                    const py::object& collection, int64_t max_configs, const ScoreOptions& o,
                    const std::string& devices, const std::string& device_name) {
  nlohmann::json j;
  {
    std::string id_text = collection.is_none() ? model.collection : collection.cast<std::string>();
    py::gil_scoped_release release;
    check_data(!id_text.empty(), "evaluate", "collection",
               "needed (the run does not name one)");
    const data::CollectionId id = data::CollectionId::parse(id_text);
    infer::check_runs_kind(model.runs, model.run_dirs, id);
    data::LoadOptions load;  // as eval: duplicates merged
    load.devices = devices;
    load.device_name = device_name;
    infer::apply_run_pruning(model.runs, model.run_dirs, infer::kRunPruning, load);
    auto c = io::open_collection(data, id, split, load);
    model::set_threads(o.threads);
    const infer::Scorer scorer = make_scorer(model, o);
    const std::vector<eval::GraphScores> scores = infer::score_collection(scorer, *c, max_configs);
    for (const auto& s : scores) {
      if (s.measured.empty())
        throw Error(data, s.name, "no runtimes to evaluate against (test split without answers?)");
    }
    j = eval::to_json(eval::evaluate(id.kind, scores));
    j["collection"] = id.str();
    j["split"] = split;
  }
  return json_to_python(j);
}

py::array_t<int64_t> rank(const std::vector<double>& scores) {
  const std::vector<int64_t> order = eval::rank_fastest_first(scores);
  return py::array_t<int64_t>(static_cast<py::ssize_t>(order.size()), order.data());
}

// The metric functions take (predicted, measured) numpy arrays of equal length.
template <typename F>
auto metric(F f) {
  return [f](const py::object& predicted, const py::object& measured) {
    const std::vector<double> p = doubles_from_numpy(predicted, "predicted");
    const std::vector<double> m = doubles_from_numpy(measured, "measured");
    check_data(p.size() == m.size(), "argument", "measured",
               "has " + std::to_string(m.size()) + " values but predicted has " +
                   std::to_string(p.size()));
    return f(p, m);
  };
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<ScoreOptions>(m, "ScoreOptions")
      .def(py::init([](int64_t mc_samples, uint64_t seed, int64_t slate_size, int64_t tta,
                       int64_t anchors, int threads) {
             ScoreOptions o;
             o.mc_samples = mc_samples;
             o.seed = seed;
             o.slate_size = slate_size;
             o.tta = tta;
             o.anchors = anchors;
             o.threads = threads;
             infer::check_scoring_options(o, "score");
             return o;
           }),
           // The defaults are the scoring options' table's (infer/scoring_options.h), as the
           // CLI's flags show them.
           py::arg("mc_samples") = kScoringDefaults.mc_samples,
           py::arg("seed") = kScoringDefaults.seed,
           py::arg("slate_size") = kScoringDefaults.slate_size,
           py::arg("tta") = kScoringDefaults.tta, py::arg("anchors") = kScoringDefaults.anchors,
           py::arg("threads") = 0);

  py::class_<PyModel, std::shared_ptr<PyModel>>(m, "Model", "One trained run, or an ensemble of runs")
      .def_property_readonly("run_dirs", [](const PyModel& p) { return p.run_dirs; })
      .def_property_readonly("collection", [](const PyModel& p) { return p.collection; })
      .def_property_readonly("kind", [](const PyModel& p) {
        std::vector<std::string> kinds;
        for (const infer::TrainedModel& r : p.runs) kinds.push_back(infer::run_kind(r));
        return kinds;
      })
      .def("_score", [](PyModel& p, const py::object& target, const py::object& configs,
                        const ScoreOptions& o) { return score_target(p, target, configs, o, false); })
      .def("_spread", [](PyModel& p, const py::object& target, const py::object& configs,
                         const ScoreOptions& o) { return score_target(p, target, configs, o, true); })
      .def("_evaluate", &evaluate)
      .def("__repr__", [](const PyModel& p) {
        std::string dirs;
        for (const auto& d : p.run_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
        return "<graphcost.Model " + dirs + (p.collection.empty() ? "" : " (" + p.collection + ")") + ">";
      });
  m.def("_load", &load, py::arg("run_dirs"), py::arg("ensemble") = "mean");
  m.def("_rank", [](const py::object& scores) { return rank(doubles_from_numpy(scores, "scores")); });

  m.def("evaluate_scores",
        [](const std::string& kind, const py::object& predicted, const py::object& measured) {
          check_data(kind == "tile" || kind == "layout", "argument", "kind",
                     "'" + kind + "' is not tile or layout");
          eval::GraphScores g{"graph", doubles_from_numpy(predicted, "predicted"),
                              doubles_from_numpy(measured, "measured")};
          const eval::MetricTable t = eval::evaluate(
              kind == "tile" ? data::ConfigKind::Tile : data::ConfigKind::Layout, {g});
          py::dict out;
          for (size_t i = 0; i < t.metric_names.size(); ++i) out[py::str(t.metric_names[i])] = t.rows[0][i];
          return out;
        },
        py::arg("kind"), py::arg("predicted"), py::arg("measured"),
        "The metrics eval reports for one graph of a kind (tile or layout), as a dict");
  m.def("kendall_tau", metric(eval::kendall_tau), py::arg("predicted"), py::arg("measured"),
        "Kendall tau-b of predicted costs against measured runtimes (eval's)");
  m.def("opa", metric(eval::ordered_pair_accuracy), py::arg("predicted"), py::arg("measured"),
        "Ordered pair accuracy (eval's opa)");
  m.def("tile_score", metric(eval::tile_score), py::arg("predicted"), py::arg("measured"),
        "The Kaggle tile score of one kernel: 2 - best of the top 5 predicted / best");
  m.def("top_k_error",
        [](const py::object& predicted, const py::object& measured, int64_t k) {
          check_data(k >= 1, "argument", "k", "must be >= 1");
          return metric([k](const std::vector<double>& p, const std::vector<double>& q) {
            return eval::top_k_error(p, q, k);
          })(predicted, measured);
        },
        py::arg("predicted"), py::arg("measured"), py::arg("k"),
        "Best measured runtime among the k lowest predicted over the best overall, minus 1");
}

}  // namespace graphcost::python
