// A training session: one run trained into one run folder (run/run_folder.h), in four steps that
// every front-end drives (`graphcost train` and its distributed ranks, the Python module's
// graphcost.train, a study's trials; a sweep's runs are `graphcost train` processes):
//   set up    (the constructor) the folder's writer lock, the resume rules and the option checks,
//             the data, the model, the optimiser, a checkpoint restored, config.json written;
//   step      one iteration: a batch, its gradient and the optimiser's step, a metrics line,
//             validation and a checkpoint when due;
//   validate  the validation metrics now (through infer::, as eval scores a run);
//   finish    the last checkpoint, the weight average (SWA), model.pt.
// A front-end gives the options it was given (SessionRequest) and reads what came of them; it
// applies no rule of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/collection.h"
#include "dist/group.h"
#include "model/forward/ranker.h"
#include "run/run_folder.h"
#include "train/options.h"
#include "train/sampler.h"
#include "train/validation.h"

namespace graphcost::train {

// How a front-end names options in its errors: as flags ("--resume", "--iterations") or as the
// Python module's keyword arguments ("resume", "iterations").
enum class OptionNames { Flags, Keywords };

// What a front-end asks of a session.
struct SessionRequest {
  std::string run_dir;
  // Continue from the run's checkpoint with its stored options: only the resume-free options
  // (train::resume_free_flags) may be given otherwise.
  bool resume = false;
  // Replace a run already in run_dir; without it (and without resume) a run there is refused.
  bool overwrite = false;
  // Write over whatever run_dir holds, checking and removing nothing (a study's trial folders,
  // the train() call of tests and benchmarks). Not with overwrite.
  bool reuse_folder = false;
  // A launcher started the command again after a failure (torchrun --max_restarts): it resumes,
  // and its --config may stay on the command line.
  bool restarted = false;
  // A JSON file of options (`train --config`) read under the given ones; "" for none.
  std::string config_file;
  // Applies the options given (flags, keyword arguments) over the defaults or config_file's for
  // a new run, over the stored options on resume. Null: none given.
  std::function<void(TrainOptions&)> apply_given;
  // The collection was named (a flag, a keyword, config_file): else a collection folder given as
  // data names it.
  bool collection_given = false;
  OptionNames names = OptionNames::Flags;
  std::string writer = "graphcost train";  // who holds the folder's lock, for a refused writer
};

struct TrainResult {
  int64_t iterations = 0;  // iterations completed in total
  bool interrupted = false;
  double last_loss = 0;            // mean loss of the last logged interval
  nlohmann::json last_validation;  // empty when no validation ran
  double data_wait_fraction = 0;   // share of the loop's time spent waiting for batches
  double seconds = 0;              // the loop's wall-clock time, checkpoints included
  // Where it went (#39's accounting): the slates' forward, backward and gradient sums in
  // thread-seconds (slates run on several threads at once), the optimiser's step (weight
  // averaging included) and validation in seconds.
  double forward_seconds = 0, backward_seconds = 0, summing_seconds = 0;
  double optimizer_seconds = 0, validation_seconds = 0;
  double allreduce_seconds_per_step = 0;  // across processes: the gradients' allreduce
  int64_t allreduce_bytes_per_step = 0;
};

// Per tile configuration column of the collection, its distinct values in increasing order, or
// none where it has more than `most` (ModelOptions::config_values).
std::vector<std::vector<double>> distinct_config_values(const data::Collection& collection,
                                                        int64_t most);

// Fills the data-dependent model options (kind, feature widths, config_values when
// config_one_hot > 0, layout_shapes "auto" as on or off: model::resolved_layout_shapes, which
// reads segment_nodes, so GST's options are applied first) from a collection.
model::ModelOptions resolve_model_options(const model::ModelOptions& options,
                                          const data::Collection& collection);

// The options a request trains with: the resume rule (the stored options, of which only the
// resume-free ones may be given otherwise), the --config file, the new-folder check (leader
// only), the collection a folder given as data names, and the option checks for the kind of
// given_data, else of the collection the options name. An Error names the option as the
// request's front-end spells it. The session's set up calls it before it reads any data.
TrainOptions resolve_session_options(const SessionRequest& request, const run::RunFolder& folder,
                                     bool leader, const data::Collection* given_data);

class Session {
 public:
  // Sets up a session on the data its options name (opened here).
  // group (data parallel, docs/distributed.md): every rank draws the same batches and computes
  // its share of each batch's slates; the gradients are summed across the ranks and every rank
  // takes the same step. Rank 0 alone owns the run folder; the world size may change on resume.
  explicit Session(const SessionRequest& request, dist::Group* group = nullptr);
  // Sets up a session on collections already open (a study's trials share one copy); they must
  // outlive the session. valid_set may be null (no validation).
  Session(const SessionRequest& request, const data::Collection& train_set,
          const data::Collection* valid_set, dist::Group* group = nullptr);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The options the run trains with (resolved: stored on resume, the model's from the data).
  const TrainOptions& options() const;
  const data::Collection& train_set() const;
  const data::Collection* valid_set() const;  // null without validation data
  const run::RunFolder& folder() const;

  // Whether the run is over: every iteration trained, or stopped.
  bool done() const;
  // Trains one iteration, unless a stop was asked (Ctrl-C, request_stop(); across processes, by
  // any rank): then it trains nothing, done() turns true and it returns false.
  bool step();
  int64_t iteration() const;  // iterations completed in total
  // The metrics.jsonl line the last step wrote (null when it wrote none).
  const nlohmann::json& logged() const;
  // The validation metrics of the model now (see validate above); the final one also writes
  // valid_predictions.jsonl when `write_predictions`.
  nlohmann::json validate(bool write_predictions = false);
  // Ends the run: the last checkpoint; unless stopped, the weight average and its validation,
  // and model.pt. Returns what came of it.
  TrainResult finish();

  struct State;  // the model, the optimiser, the sampler, the loop's counters

 private:
  void set_up(const SessionRequest& request);
  std::unique_ptr<State> state_;
};

// Called on the training thread after every iteration with the iterations done so far and the
// metrics.jsonl line that iteration wrote (null when none): the Python module's progress
// callback, a study's pruner. It may call request_stop() to stop with a checkpoint.
using IterationObserver = std::function<void(int64_t iteration, const nlohmann::json& logged)>;

// Steps a session to its end, calling observer after every iteration, and finishes it.
TrainResult train(Session& session, const IterationObserver& observer = nullptr);

}  // namespace graphcost::train
