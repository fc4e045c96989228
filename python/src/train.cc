// graphcost.train: the CLI's train with its options given as config.json names (the keyword
// arguments become a JSON object read by train::from_json and checked by check_train_options,
// the --config path), a progress callback, and Ctrl-C stopping with a checkpoint.
#include <Python.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "python/src/bindings.h"
#include "run/run_folder.h"
#include "train/interrupt.h"
#include "train/session.h"
#include "train/xgboost_run.h"

namespace graphcost::python {

namespace {

// Options may name a model option at the top level (hidden=[64]) as well as under "model"
// (model={"hidden": [64]}): the top-level one moves under "model", so both read as config.json.
nlohmann::json nest_model_options(nlohmann::json given) {
  const nlohmann::json defaults = train::TrainOptions{};
  nlohmann::json out = nlohmann::json::object();
  for (auto& [key, value] : given.items()) {
    if (!defaults.contains(key) && defaults["model"].contains(key)) {
      out["model"][key] = value;
    } else if (key == "model" && value.is_object()) {
      for (auto& [k, v] : value.items()) out["model"][k] = v;
    } else {
      out[key] = value;
    }
  }
  return out;
}

// An XGBoost run (model='xgboost', or 'auto' on Kernel Tuner records), as the CLI's train.
py::dict xgboost_run(const nlohmann::json& given, const std::string& requested,
                     const std::string& out, bool overwrite) {
  train::XgboostRunRequest request;
  train::from_json(given, request.options);
  for (const auto& [key, value] : given.items()) {
    if (key != "model") request.given.push_back(key);
  }
  if (given.contains("model"))
    for (const auto& [key, value] : given["model"].items()) request.given.push_back(key);
  request.collection_given = given.contains("collection");
  request.requested = requested;
  request.as_flags = false;
  request.out = out;
  request.overwrite = overwrite;
  request.writer = "graphcost.train (Python)";
  {
    py::gil_scoped_release release;
    train::run_xgboost(request);
  }
  py::dict d;
  d["model"] = "xgboost";
  d["iterations"] = train::xgboost_options(request.options).rounds;
  d["interrupted"] = false;
  d["last_loss"] = py::none();
  d["last_validation"] = py::none();
  d["data_wait_fraction"] = 0.0;
  d["out"] = out;
  return d;
}

py::dict train_run(const std::string& options_json, const std::string& out, bool resume,
                   bool overwrite, const py::object& progress, const std::string& model) {
  const nlohmann::json given = nest_model_options(nlohmann::json::parse(options_json));
  check_data(!resume || model != "xgboost", "train", "resume",
             "an XGBoost run has no checkpoint to resume from (it trains in one go)");
  if (!resume) {
    train::TrainOptions named;
    train::from_json(given, named);
    if (train::choose_model(model, named.data, named.split, "model") == "xgboost")
      return xgboost_run(given, model, out, overwrite);
  }
  std::optional<py::error_already_set> raised;  // from the callback or Ctrl-C
  train::TrainResult result;
  {
    py::gil_scoped_release release;
    // As the CLI's train: the session applies the resume rules and checks the options.
    train::SessionRequest request;
    request.run_dir = out;
    request.resume = resume;
    request.overwrite = overwrite;
    request.apply_given = [&](train::TrainOptions& options) { train::from_json(given, options); };
    request.collection_given = given.contains("collection");
    request.names = train::OptionNames::Keywords;
    request.writer = "graphcost.train (Python)";
    train::Session session(request);
    train::clear_stop_request();
    const int64_t iterations = session.options().iterations;
    // Python's own SIGINT handler stays: it flags the signal, and the observer, holding the GIL,
    // runs it (PyErr_CheckSignals raises KeyboardInterrupt) and asks the loop to stop, which
    // writes the checkpoint as the CLI's handler does.
    auto observer = [&](int64_t iteration, const nlohmann::json& logged) {
      py::gil_scoped_acquire acquire;
      if (raised) return;
      try {
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        if (!progress.is_none()) {
          progress(iteration, iterations,
                   logged.is_null() ? py::object(py::none())
                                    : py::module_::import("json").attr("loads")(logged.dump()));
        }
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
        train::request_stop();
      }
    };
    result = train::train(session, observer);
  }
  if (raised) {
    // The checkpoint is written; the exception (KeyboardInterrupt, or the callback's) goes on,
    // with where to resume from in its notes.
    std::fprintf(stderr,
                 "train: stopped at iteration %lld; checkpoint in %s (continue with resume=True)\n",
                 static_cast<long long>(result.iterations),
                 run::RunFolder(out).checkpoint_path().c_str());
    raised->restore();
    throw py::error_already_set();
  }
  py::dict d;
  d["iterations"] = result.iterations;
  d["interrupted"] = result.interrupted;
  d["last_loss"] = result.last_loss;
  d["last_validation"] = result.last_validation.is_null()
                             ? py::object(py::none())
                             : py::module_::import("json").attr("loads")(result.last_validation.dump());
  d["data_wait_fraction"] = result.data_wait_fraction;
  d["model"] = "gnn";
  d["out"] = out;
  return d;
}

}  // namespace

void bind_train(py::module_& m) {
  m.def("_train", &train_run, py::arg("options_json"), py::arg("out"), py::arg("resume") = false,
        py::arg("overwrite") = false, py::arg("progress") = py::none(), py::arg("model") = "auto");
  m.def("_train_defaults", [] {
    return py::module_::import("json").attr("loads")(nlohmann::json(train::TrainOptions{}).dump());
  });
}

}  // namespace graphcost::python
