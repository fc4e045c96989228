// graphcost study: model-based hyperparameter search over training options (src/study: the
// space, the samplers, the pruners and the study database). Each worker claims a trial from the
// database, samples its options, trains it in this process through the trainer (validating every
// --validate-every iterations: the intermediate values the pruner judges) and records the result;
// workers on one machine (--workers) or many (the same command, one database) share the study.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "data/collection.h"
#include "data/data_options.h"
#include "eval/summary.h"
#include "infer/scoring.h"
#include "io/collection_readers.h"
#include "run/run_config.h"
#include "run/run_folder.h"
#include "study/pruner.h"
#include "study/report.h"
#include "study/sampler.h"
#include "study/space.h"
#include "study/storage.h"
#include "sweep/spec.h"
#include "train/interrupt.h"
#include "train/session.h"
#include "xgb/options.h"
#include "xgb/ranker.h"
#include "xgb/run_writer.h"

namespace graphcost::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct StudyCommand {
  std::string space_path, storage = "sqlite:///study.db", study, objective, sampler = "tpe",
                          pruner = "median", out, config, sampler_options, pruner_options;
  std::string model_type = "gnn";  // gnn or xgboost
  int64_t trials = 20;
  int64_t workers = 1;
  uint64_t seed = 0;
  double heartbeat_timeout = 300;
  std::unique_ptr<OptionFlags<train::TrainOptions>> flags;
  const CLI::Option* collection_option = nullptr;
  std::string note;  // a line the first worker prints once the study is open (the defaults used)
};

// "kendall_tau:max" -> {"kendall_tau", true}; a metric alone takes its natural direction (the
// *_error metrics are minimised, the others maximised).
std::pair<std::string, bool> parse_objective(const std::string& text, data::ConfigKind kind) {
  std::string metric = text, direction;
  if (const size_t colon = text.find(':'); colon != std::string::npos) {
    metric = text.substr(0, colon);
    direction = text.substr(colon + 1);
  }
  if (metric.empty()) metric = kind == data::ConfigKind::Tile ? "tile_score" : "kendall_tau";
  const std::vector<std::string> names = eval::metric_names(kind);
  std::string valid;
  for (const std::string& name : names) valid += (valid.empty() ? "" : ", ") + name;
  check_data(std::find(names.begin(), names.end(), metric) != names.end(), "study", "--objective",
             "'" + metric + "' is not a validation metric of this collection (" + valid + ")");
  check_data(direction.empty() || direction == "max" || direction == "min", "study", "--objective",
             "direction must be max or min, got '" + direction + "'");
  const bool natural_max = metric.size() < 6 || metric.substr(metric.size() - 6) != "_error";
  return {metric, direction.empty() ? natural_max : direction == "max"};
}

// A JSON object given on the command line ("" is {}).
json options_json(const std::string& text, const std::string& flag) {
  if (text.empty()) return json::object();
  const json j = json::parse(text, nullptr, false);
  check_data(j.is_object(), "study", flag, "expected a JSON object, got '" + text + "'");
  return j;
}

std::string worker_name() {
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(::getpid());
}

std::string format_value(std::optional<double> v) {
  if (!v) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", *v);
  return text;
}

// An XGBoost trial: trains on train_set with the base "xgboost" options and the trial's params,
// writes an XGBoost run into run_dir, and returns its validation metric (all configurations).
std::optional<double> train_xgboost_trial(const json& base, const json& params,
                                          const data::CollectionId& id, const data::Collection& train_set,
                                          const data::Collection& valid_set, const std::string& metric,
                                          int threads, const std::string& run_dir) {
  json wrapper = {{"xgboost", base.value("xgboost", json::object())}};
  for (const auto& [key, value] : params.items()) sweep::set_dotted(wrapper, key, value);
  xgb::XgbOptions options;
  xgb::from_json(wrapper["xgboost"], options);
  options.threads = threads;
  xgb::check_xgb_options(options);
  const run::RunFolder folder(run_dir);
  const auto folder_lock = folder.lock("graphcost study (xgboost trial)");
  const xgb::XgbRanker ranker = xgb::XgbRanker::train(train_set, options);
  json data_json = base;
  data_json.erase("xgboost");
  train::TrainOptions data_options;  // the data part of the base
  train::from_json(data_json, data_options);
  xgb::write_run(folder, ranker, data_options, id);
  // Scored as eval scores a run: every configuration of every validation graph.
  std::vector<infer::TrainedModel> runs{infer::load_run(run_dir)};
  const infer::Scorer scorer(infer::ScoringOptions{}, runs);
  const eval::MetricTable table =
      eval::evaluate(id.kind, infer::score_collection(scorer, valid_set, 0));
  for (size_t m = 0; m < table.metric_names.size(); ++m)
    if (table.metric_names[m] == metric && std::isfinite(table.means[m])) return table.means[m];
  return std::nullopt;
}

// A neural trial: a training session on the worker's data with `options_json` (the base options
// and the trial's parameters), each validation of `metric` reported to the study, whose pruner
// may stop it. Sets value as each validation reports it, and state (and message) when the trial
// did not complete.
void train_neural_trial(const json& options_json, int threads, const std::string& run_dir,
                        const data::Collection& train_set, const data::Collection& valid_set,
                        const std::string& metric, bool maximize, study::Storage& storage,
                        int64_t study_id, study::Pruner& pruner, study::TrialRecord& trial,
                        std::optional<double>& value, study::TrialState& state,
                        std::string& message) {
  // The trial's folder is its own: written over as it stands (a trial whose worker was lost runs
  // again under a new number, in a new folder).
  train::SessionRequest request;
  request.run_dir = run_dir;
  request.reuse_folder = true;
  request.collection_given = true;
  request.apply_given = [&](train::TrainOptions& options) {
    train::from_json(options_json, options);
    options.threads = threads;  // checked by the session, before it writes anything
  };
  train::Session session(request, train_set, &valid_set);
  const int64_t iterations = session.options().iterations;
  bool pruned = false;
  auto last_beat = std::chrono::steady_clock::now();
  auto observer = [&](int64_t iteration, const json& logged) {
    const auto now = std::chrono::steady_clock::now();
    if (logged.is_object() && logged.contains(metric) && logged[metric].is_number()) {
      const double v = logged[metric].get<double>();
      storage.report(study_id, trial.number, iteration, v);
      trial.intermediate[iteration] = v;
      value = v;
      last_beat = now;
      if (iteration < iterations &&
          pruner.should_prune(trial, iteration, storage.trials(study_id), maximize)) {
        pruned = true;
        train::request_stop();
      }
    } else if (now - last_beat > std::chrono::seconds(10)) {
      storage.heartbeat(study_id, trial.number);
      last_beat = now;
    }
  };
  const train::TrainResult result = train::train(session, observer);
  if (pruned) {
    state = study::TrialState::Pruned;
    train::clear_stop_request();
  } else if (result.interrupted) {
    state = study::TrialState::Failed;
    message = "interrupted";
  } else if (result.last_validation.contains(metric) && result.last_validation[metric].is_number()) {
    value = result.last_validation[metric].get<double>();
  } else {
    state = study::TrialState::Failed;
    message = "validation reported no " + metric;
  }
}

// One worker: claims and trains trials until the study holds --trials of them.
void run_worker(const StudyCommand& c, const json& base, const study::SearchSpace& space,
                const nlohmann::ordered_json& space_json, int threads) {
  std::unique_ptr<study::Storage> storage = study::open_storage(c.storage);
  train::TrainOptions base_options;
  json data_part = base;
  data_part.erase("xgboost");
  train::from_json(data_part, base_options);
  const data::CollectionId id = data::CollectionId::parse(base_options.collection);
  const auto [metric, maximize] = parse_objective(c.objective, id.kind);
  const fs::path out = c.out.empty() ? fs::path("study-runs") / c.study : fs::path(c.out);
  // The space is kept as its file's text too: json objects sort their keys, and its order matters.
  const json settings = {{"sampler", c.sampler},       {"pruner", c.pruner},
                         {"objective", metric},        {"seed", c.seed},
                         {"base_options", base},       {"space_file", c.space_path},
                         {"space_text", space_json.dump()}, {"model_type", c.model_type},
                         {"out", out.string()},            {"trials", c.trials},
                         {"heartbeat_timeout", c.heartbeat_timeout},
                         {"sampler_options", options_json(c.sampler_options, "--sampler-options")},
                         {"pruner_options", options_json(c.pruner_options, "--pruner-options")}};
  const int64_t study_id =
      storage->open_study(c.study, maximize, json::parse(space_json.dump()), settings);
  if (!c.note.empty()) std::fprintf(stderr, "%s\n", c.note.c_str());
  const bool grid = c.sampler == "grid";
  const int64_t grid_size = grid ? study::grid_size(space) : 0;
  std::unique_ptr<study::Sampler> sampler =
      study::make_sampler(c.sampler, c.seed, options_json(c.sampler_options, "--sampler-options"));
  std::unique_ptr<study::Pruner> pruner =
      study::make_pruner(c.pruner, options_json(c.pruner_options, "--pruner-options"));

  const data::LoadOptions load = base_options.load_options();
  std::unique_ptr<data::Collection> train_set =
      io::open_collection(base_options.data, id, base_options.split, load);
  check_data(!base_options.valid_split.empty(), "study", "--valid-split",
             "a study needs validation data to judge its trials (give --valid-split)");
  std::unique_ptr<data::Collection> valid_set = io::open_collection(
      base_options.valid_data.empty() ? base_options.data : base_options.valid_data, id,
      base_options.valid_split, load);
  const std::string worker = worker_name();
  train::clear_stop_request();
  train::install_interrupt_handler();

  while (!train::stop_requested()) {
    std::optional<study::TrialRecord> claimed =
        storage->claim_trial(study_id, c.trials, c.heartbeat_timeout, worker, grid, grid_size);
    if (!claimed) break;
    const int64_t number = claimed->number;
    const std::vector<study::TrialRecord> history = storage->trials(study_id);
    const json params = grid ? study::grid_point(space, claimed->grid_index.value_or(0))
                             : sampler->sample(space, history, number, maximize);
    char name[32];
    std::snprintf(name, sizeof name, "trial-%04lld", static_cast<long long>(number));
    const std::string run_dir = (out / name).string();
    storage->set_params(study_id, number, params, run_dir);
    json trial_json = base;
    for (const auto& [key, value] : params.items()) sweep::set_dotted(trial_json, key, value);

    study::TrialRecord trial = *claimed;
    trial.params = params;
    std::optional<double> value;
    std::string message;
    study::TrialState state = study::TrialState::Complete;
    try {
      if (c.model_type == "xgboost") {
        value = train_xgboost_trial(base, params, id, *train_set, *valid_set, metric, threads, run_dir);
        if (!value) {
          state = study::TrialState::Failed;
          message = "validation reported no " + metric;
        }
      } else {
        train_neural_trial(trial_json, threads, run_dir, *train_set, *valid_set, metric, maximize,
                           *storage, study_id, *pruner, trial, value, state, message);
      }
    } catch (const Error& e) {
      state = study::TrialState::Failed;
      message = e.what();
    }
    const char* state_name = study::trial_state_name(state);
    // The run folder says how its trial ended (a pruned run has a checkpoint, no model).
    std::error_code ignored;
    if (fs::is_directory(run_dir, ignored))
      run::RunFolder(run_dir).write_state(
          state == study::TrialState::Pruned   ? run::RunState::Pruned
          : state == study::TrialState::Failed ? run::RunState::Failed
                                               : run::RunState::Complete,
          json{{"study", c.study}, {"trial", number}, {"objective", metric},
               {"value", value ? json(*value) : json(nullptr)}, {"params", params},
               {"message", message}});
    storage->finish(study_id, number, state, value, message);
    const std::vector<study::TrialRecord> now = storage->trials(study_id);
    const study::TrialRecord* best = study::best_trial(now, maximize);
    std::fprintf(stderr, "study: trial %lld %s: %s %s%s%s (best %s, trial %lld)\n",
                 static_cast<long long>(number), state_name, metric.c_str(),
                 format_value(value).c_str(), message.empty() ? "" : ": ", message.c_str(),
                 best ? format_value(best->value).c_str() : "-",
                 static_cast<long long>(best ? best->number : -1));
  }
}

void run_study(StudyCommand& c) {
  check_data(!c.space_path.empty(), "study", "--space", "required (a search space JSON file)");
  check_data(!c.study.empty(), "study", "--study", "required (the study's name)");
  check_data(c.trials >= 1, "study", "--trials", "must be at least 1");
  check_data(c.workers >= 1, "study", "--workers", "must be at least 1");
  // The base options: defaults, --config, then flags, as train reads them (tabular records
  // start from defaults of their own, train::tabular_defaults, as train's do).
  json base_xgb = json::object();
  auto base_from = [&](train::TrainOptions base_options) {
    if (!c.config.empty()) {
      json j;
      try {
        j = json::parse(read_file(c.config));
      } catch (const json::exception& e) {
        throw Error(c.config, "", std::string("not valid JSON: ") + e.what());
      }
      // A run's config.json (with its header) or plain options.
      const bool has_header =
          j.is_object() && (j.contains("model_type") || j.contains("format_version"));
      const json options =
          has_header
              ? run::strip_run_header(
                    j, c.model_type == "xgboost" ? run::ModelType::XGBoost : run::ModelType::Gnn,
                    c.config)
              : j;
      if (c.model_type == "xgboost") {
        // An XGBoost run's config.json: its data keys and its "xgboost" object.
        base_xgb = options.value("xgboost", json::object());
        json data_part = options;
        data_part.erase("xgboost");
        train::from_json(data_part, base_options);
      } else {
        train::from_json(options, base_options);
      }
    }
    c.flags->apply(base_options);
    return base_options;
  };
  train::TrainOptions base_options = base_from(train::TrainOptions{});
  check_data(!base_options.data.empty(), "study", "--data", "no dataset path given");
  if (c.model_type == "gnn" && io::is_kernel_tuner_source(base_options.data, base_options.split)) {
    base_options = base_from(train::tabular_defaults());
    // Said once the study is open, as the tile defaults' line below.
    c.note = "study: Kernel Tuner records: the trials start from the defaults for tabular data (" +
             train::tabular_defaults_text(true) +
             "; docs/kernel-tuner.md); options given override them";
  }
  auto collection_from_path = [&] {
    if (c.config.empty() && c.collection_option != nullptr && c.collection_option->count() == 0)
      if (const auto named = data::collection_id_in_path(base_options.data))
        base_options.collection = named->str();
  };
  collection_from_path();
  if (c.model_type == "gnn" && !io::is_kernel_tuner_source(base_options.data, base_options.split) &&
      data::CollectionId::parse(base_options.collection).kind == data::ConfigKind::Tile) {
    // Each trial's decay is set from its own iterations (train::finish_tile_defaults).
    base_options = base_from(train::tile_defaults());
    collection_from_path();
    // Said once the study is open: a bad space or storage is one line before anything else.
    c.note = "study: tile data: the trials start from the defaults for tile configurations (" +
             train::tile_defaults_text(true) +
             "; docs/quality.md); options given and the space override them";
  }
  const data::CollectionId id = data::CollectionId::parse(base_options.collection);
  parse_objective(c.objective, id.kind);  // a bad objective before anything else
  json base = base_options;
  if (c.model_type == "xgboost") base["xgboost"] = base_xgb;
  // The space: one line naming the key and the problem before anything trains.
  nlohmann::ordered_json space_json;  // file order: a condition names an earlier parameter
  try {
    space_json = nlohmann::ordered_json::parse(read_file(c.space_path));
  } catch (const json::exception& e) {
    throw Error(c.space_path, "", std::string("not valid JSON: ") + e.what());
  }
  // The data are read once per worker: a trial may not change them.
  for (const auto& field : data::data_option_fields())
    if (space_json.is_object() && space_json.contains(field.key))
      throw Error(c.space_path, field.key,
                  "a data option: every trial of a study trains on the same data (set it with " +
                      std::string(field.flags).substr(0, std::string(field.flags).find(',')) + ")");
  check_data(c.model_type == "gnn" || c.model_type == "xgboost", "study", "--model-type",
             "gnn or xgboost, got '" + c.model_type + "'");
  const json defaults = train::TrainOptions{};
  json xgb_defaults;
  xgb::to_json(xgb_defaults, xgb::XgbOptions{});
  // A GNN study tunes training and model options; an XGBoost study the "xgboost" object's.
  auto known_key = [&](const std::string& dotted) {
    const size_t dot = dotted.find('.');
    const std::string head = dotted.substr(0, dot), rest = dot == std::string::npos ? "" : dotted.substr(dot + 1);
    if (c.model_type == "xgboost") {
      if (head != "xgboost" || rest.empty()) return false;
      const size_t inner = rest.find('.');
      if (inner == std::string::npos) return xgb_defaults.contains(rest) && rest != "features";
      return rest.substr(0, inner) == "features" &&
             xgb_defaults["features"].contains(rest.substr(inner + 1));
    }
    if (dot == std::string::npos) return defaults.contains(dotted) && dotted != "model";
    return head == "model" && defaults["model"].contains(rest);
  };
  const study::SearchSpace space = study::parse_space(space_json, c.space_path, known_key);
  const int threads_total =
      base_options.threads > 0 ? base_options.threads
                               : static_cast<int>(std::max<long>(1, ::sysconf(_SC_NPROCESSORS_ONLN)));
  const int threads = std::max<int>(1, threads_total / static_cast<int>(c.workers));
  // Workers beyond the first are forked before LibTorch starts any thread.
  std::vector<pid_t> children;
  for (int64_t w = 1; w < c.workers; ++w) {
    const pid_t pid = ::fork();
    check_data(pid >= 0, "study", "--workers", "cannot start a worker process");
    if (pid == 0) {
      int status = 0;
      c.note.clear();  // the first worker says it
      try {
        run_worker(c, base, space, space_json, threads);
      } catch (const Error& e) {
        std::fprintf(stderr, "graphcost: error: %s\n", e.what());
        status = 1;
      }
      std::fflush(stderr);
      ::_exit(status);
    }
    children.push_back(pid);
  }
  run_worker(c, base, space, space_json, threads);
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  check_data(failed == 0, "study", "--workers",
             std::to_string(failed) + " worker process(es) failed (their errors are above)");
}

// study resume: the study's stored settings (base options, space, sampler, pruner, objective,
// folder) run again, to the stored total of trials or a new one.
struct ResumeCommand {
  std::string storage = "sqlite:///study.db", study;
  int64_t trials = 0;  // 0: the total the study was started with
  int64_t workers = 1;
};

void resume_study(const ResumeCommand& r) {
  std::optional<study::StudyInfo> info = study::open_storage(r.storage)->find_study(r.study);
  check_data(info.has_value(), r.storage, "--study", "no study named '" + r.study + "'");
  const json& s = info->settings;
  check_data(s.contains("space_text") && s.contains("base_options") && s.contains("out"), r.storage,
             "study " + r.study,
             "was started by an older graphcost that did not store its settings: run `graphcost "
             "study` with its options again");
  // The stored space and base options as the files the command reads, in a folder of our own.
  std::string folder = (fs::temp_directory_path() / "graphcost_resume_XXXXXX").string();
  check_data(::mkdtemp(folder.data()) != nullptr, "study resume", "", "cannot create a temporary folder");
  struct RemoveAfter {
    std::string path;
    ~RemoveAfter() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_after{folder};
  StudyCommand c;
  c.space_path = folder + "/space.json";
  c.config = folder + "/base.json";
  write_file_atomically(c.space_path, s["space_text"].get<std::string>());
  write_file_atomically(c.config, s["base_options"].dump());
  c.storage = r.storage;
  c.study = r.study;
  c.trials = r.trials > 0 ? r.trials : s.value("trials", int64_t{0});
  c.workers = r.workers;
  c.sampler = s.value("sampler", "tpe");
  c.pruner = s.value("pruner", "median");
  c.sampler_options = s.value("sampler_options", json::object()).dump();
  c.pruner_options = s.value("pruner_options", json::object()).dump();
  c.seed = s.value("seed", uint64_t{0});
  c.model_type = s.value("model_type", "gnn");
  c.objective = s.value("objective", "") + (info->maximize ? ":max" : ":min");
  c.out = s["out"].get<std::string>();
  c.heartbeat_timeout = s.value("heartbeat_timeout", 300.0);
  CLI::App unused;
  c.flags = std::make_unique<OptionFlags<train::TrainOptions>>(&unused);  // no flags: stored base
  std::fprintf(stderr, "study: resuming %s to %lld trials\n", r.study.c_str(),
               static_cast<long long>(c.trials));
  run_study(c);
}

}  // namespace

void add_study_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "study", "Hyperparameter search: TPE/random/grid over training options, pruning, a shared "
               "study database (docs/study.md)");
  auto c = std::make_shared<StudyCommand>();
  c->flags = std::make_unique<OptionFlags<train::TrainOptions>>(sub);
  sub->add_option("--space", c->space_path, "Search space JSON file (docs/study.md)");
  sub->add_option("--storage", c->storage,
                  "Study database: sqlite:///FILE.db, or postgresql://USER@HOST:PORT/DB")
      ->capture_default_str();
  sub->add_option("--study", c->study, "The study's name in the database");
  sub->add_option("--trials", c->trials,
                  "Trials the study holds in total, every worker together (complete, pruned or "
                  "failed); a larger number adds trials to a finished study")
      ->capture_default_str();
  sub->add_option("--workers", c->workers, "Worker processes on this machine")->capture_default_str();
  sub->add_option("--objective", c->objective,
                  "Validation metric to optimise, METRIC[:max|min] (default: kendall_tau for "
                  "layout, tile_score for tile)");
  sub->add_option("--sampler", c->sampler, "tpe (multivariate), tpe:independent, random or grid")
      ->capture_default_str();
  sub->add_option("--pruner", c->pruner, "median, asha or none")->capture_default_str();
  sub->add_option("--sampler-options", c->sampler_options,
                  "JSON object, e.g. {\"startup_trials\": 10, \"candidates\": 24} for tpe");
  sub->add_option("--pruner-options", c->pruner_options,
                  "JSON object, e.g. {\"startup_trials\": 5} (median), {\"min_resource\": 100, "
                  "\"reduction_factor\": 3} (asha; steps are training iterations)");
  sub->add_option("--sampler-seed", c->seed,
                  "The sampler's seed (--seed is the trials' training seed)")
      ->check(unsigned_64())
      ->capture_default_str();
  sub->add_option("--out", c->out, "Folder of the trials' run folders (default: study-runs/NAME)");
  sub->add_option("--config", c->config,
                  "JSON file of base options (a GNN's train options, or an XGBoost run's "
                  "config.json with its \"xgboost\" object)");
  sub->add_option("--model-type", c->model_type,
                  "gnn (trials train the neural ranker; space keys are train and model options) or "
                  "xgboost (trials train XGBoost rank:pairwise; space keys xgboost.*, no pruning)")
      ->capture_default_str();
  sub->add_option("--heartbeat-timeout", c->heartbeat_timeout,
                  "Seconds after which a running trial whose worker went silent is failed")
      ->capture_default_str();
  add_train_option_flags(*c->flags);
  c->collection_option = c->flags->option("collection");
  sub->callback([sub, c] {
    if (sub->get_subcommands().empty()) run_study(*c);
  });
  add_study_show_commands(sub);
  auto resume = std::make_shared<ResumeCommand>();
  CLI::App* resume_command = sub->add_subcommand(
      "resume", "Run a study again with the settings it was started with (to its total of trials, "
                "or --trials)");
  resume_command->add_option("--storage", resume->storage, "Study database URL")->capture_default_str();
  resume_command->add_option("--study", resume->study, "The study's name")->required();
  resume_command->add_option("--trials", resume->trials,
                             "The study's new total (default: the total it was started with)");
  resume_command->add_option("--workers", resume->workers, "Worker processes on this machine")
      ->capture_default_str();
  resume_command->callback([resume] { resume_study(*resume); });
}

}  // namespace graphcost::cli
