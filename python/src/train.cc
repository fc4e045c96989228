// graphcost.train: the CLI's train with its options given as config.json names (the keyword
// arguments become a JSON object read by train::from_json and checked by check_train_options,
// the --config path), a progress callback, and Ctrl-C stopping with a checkpoint.
#include <Python.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <pybind11/stl.h>

#include "cli/run_folder.h"
#include "core/error.h"
#include "io/collection_readers.h"
#include "run/folder_lock.h"
#include "python/src/bindings.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

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

py::dict train_run(const std::string& options_json, const std::string& out, bool resume,
                   bool overwrite, const py::object& progress) {
  const nlohmann::json given = nest_model_options(nlohmann::json::parse(options_json));
  train::TrainOptions options;
  std::optional<py::error_already_set> raised;  // from the callback or Ctrl-C
  train::TrainResult result;
  {
    py::gil_scoped_release release;
    // One writer per run folder, as the CLI's train (train() shares this lock).
    run::FolderLock folder_lock(out, "graphcost.train (Python)");
    const std::string checkpoint = out + "/checkpoint.pt";
    if (resume) {
      // As train --resume: the stored options, of which only these may be given otherwise.
      check_data(!overwrite, "train", "overwrite", "not with resume");
      check_data(std::filesystem::exists(checkpoint), checkpoint, "", "no checkpoint to resume from");
      options = train::read_checkpoint_options(checkpoint);
      // As train --resume: the table's resume rule, not a list of keys of its own.
      train::TrainOptions given_options = options;
      train::from_json(given, given_options);
      std::string changed, free;
      for (const std::string& key : train::options_fixed_on_resume_that_differ(options, given_options))
        changed += (changed.empty() ? "" : ", ") + key;
      for (const std::string& flag : train::resume_free_flags())
        free += (free.empty() ? "" : ", ") + flag.substr(2);
      std::replace(free.begin(), free.end(), '-', '_');
      check_data(changed.empty(), out, "resume",
                 "the run keeps its stored options, but these were given otherwise: " + changed +
                     " (only " + free + " may change)");
    }
    train::from_json(given, options);
    check_data(!options.data.empty(), "train", "data", "no dataset path given");
    if (!resume) cli::check_new_run_folder(out, overwrite, true);
    train::check_train_options(options);
    // As the CLI: a collection folder given as data names the collection unless one is given.
    if (!resume && !given.contains("collection")) {
      if (const auto named = data::collection_id_in_path(options.data)) options.collection = named->str();
    }
    const data::CollectionId id = data::CollectionId::parse(options.collection);
    const data::LoadOptions load = options.load_options();
    auto train_set = io::open_collection(options.data, id, options.split, load);
    std::unique_ptr<data::Collection> valid_set;
    if (!options.valid_split.empty())
      valid_set = io::open_collection(options.valid_data.empty() ? options.data : options.valid_data,
                                        id, options.valid_split, load);
    if (overwrite) cli::remove_run_files(out);
    train::clear_stop_request();
    // Python's own SIGINT handler stays: it flags the signal, and the observer, holding the GIL,
    // runs it (PyErr_CheckSignals raises KeyboardInterrupt) and asks the loop to stop, which
    // writes the checkpoint as the CLI's handler does.
    auto observer = [&](int64_t iteration, const nlohmann::json& logged) {
      py::gil_scoped_acquire acquire;
      if (raised) return;
      try {
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        if (!progress.is_none()) {
          progress(iteration, options.iterations,
                   logged.is_null() ? py::object(py::none())
                                    : py::module_::import("json").attr("loads")(logged.dump()));
        }
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
        train::request_stop();
      }
    };
    result = train::train(options, *train_set, valid_set.get(), out, resume, nullptr, observer);
  }
  if (raised) {
    // The checkpoint is written; the exception (KeyboardInterrupt, or the callback's) goes on,
    // with where to resume from in its notes.
    std::fprintf(stderr,
                 "train: stopped at iteration %lld; checkpoint in %s/checkpoint.pt (continue with "
                 "resume=True)\n",
                 static_cast<long long>(result.iterations), out.c_str());
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
  d["out"] = out;
  return d;
}

}  // namespace

void bind_train(py::module_& m) {
  m.def("_train", &train_run, py::arg("options_json"), py::arg("out"), py::arg("resume") = false,
        py::arg("overwrite") = false, py::arg("progress") = py::none());
  m.def("_train_defaults", [] {
    return py::module_::import("json").attr("loads")(nlohmann::json(train::TrainOptions{}).dump());
  });
}

}  // namespace graphcost::python
