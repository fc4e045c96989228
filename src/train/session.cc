#include "train/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "dist/collectives.h"
#include "io/collection_readers.h"
#include "model/io/model_file.h"
#include "model/kernels/gemm_ledger.h"
#include "model/kernels/precision.h"
#include "model/kernels/threads.h"
#include "model/scoring/predict.h"
#include "train/batch_gradient.h"
#include "train/checkpoint.h"
#include "train/gst.h"
#include "train/interrupt.h"
#include "train/losses.h"
#include "train/pairwise_loss.h"
#include "train/schedule.h"
#include "train/swa.h"
#include "train/validation.h"

namespace graphcost::train {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Options that cannot train with a batch's slates apart cannot train across processes either.
void check_trainable_apart(const TrainOptions& options) {
  check_data(options.model.dropout == 0, "distributed training", "--dropout",
             "cannot train across processes: each rank would draw other dropout masks (train "
             "with --dropout 0, or in one process)");
  check_data(options.gst_segment_nodes == 0, "distributed training", "--gst-segment-nodes",
             "cannot train across processes: Graph Segment Training's table of segment "
             "embeddings lives in one process (train it in one process)");
}

// The options every rank must share: all but where the data lives and the thread count, which
// may differ between machines.
std::string options_every_rank_shares(const TrainOptions& options) {
  nlohmann::json j = options;
  for (const char* free : {"data", "valid_data", "threads"}) j.erase(free);
  return j.dump();
}

}  // namespace

std::vector<std::vector<double>> distinct_config_values(const data::Collection& collection,
                                                        int64_t most) {
  const int64_t width = collection.config_width();
  std::vector<std::set<float>> seen(width);
  for (int64_t g = 0; g < collection.size(); ++g) {
    const data::ConfigView configs = collection.configs(g);
    for (int64_t j = 0; j < configs.count; ++j) {
      const float* row = configs.tile_config(j);
      for (int64_t c = 0; c < width; ++c) {
        // A column past `most` is no longer collected: its set stays at most + 1.
        if (static_cast<int64_t>(seen[c].size()) <= most) seen[c].insert(row[c]);
      }
    }
  }
  std::vector<std::vector<double>> values(width);
  for (int64_t c = 0; c < width; ++c)
    if (static_cast<int64_t>(seen[c].size()) <= most)
      values[c].assign(seen[c].begin(), seen[c].end());
  return values;
}

model::ModelOptions resolve_model_options(const model::ModelOptions& options,
                                          const data::Collection& collection) {
  model::ModelOptions resolved = options;
  resolved.kind = collection.id().kind;
  resolved.node_feature_width = collection.node_feature_width();
  resolved.config_width = collection.config_width();
  resolved.layout_shapes = model::resolved_layout_shapes(resolved);
  if (resolved.config_one_hot > 0) {
    check_data(resolved.kind == data::ConfigKind::Tile, "train", "--config-one-hot",
               "applies to tile configurations; layout values are one-hot encoded already");
    // Kept when given (a resumed run's, or a --config file's), so a model keeps its columns.
    if (resolved.config_values.empty())
      resolved.config_values = distinct_config_values(collection, resolved.config_one_hot);
  }
  return resolved;
}

struct Session::State {
  dist::Group* group = nullptr;
  bool leader = true;  // ranks other than 0 write nothing: the run folder is rank 0's
  run::RunFolder folder{""};
  std::unique_ptr<run::FolderLock> lock;
  bool resume = false;
  TrainOptions options;
  // The data: opened by the session, or given.
  std::unique_ptr<data::Collection> owned_train, owned_valid;
  const data::Collection* train_set = nullptr;
  const data::Collection* valid_set = nullptr;  // null without validation
  // Whether validations run: on a validation split, or on training graphs
  // (--validate-train-graphs), or both.
  bool validating() const { return valid_set != nullptr || options.validate_train_graphs != 0; }

  int threads = 1;
  model::Ranker model{nullptr};
  std::unique_ptr<WeightedLoss> loss;
  bool shift_invariant = false;  // ranking losses ignore the score terms all configurations share
  bool pairwise = false;         // the pairwise head trains on its own loss, over pairs
  bool slates_apart = false;
  ScheduleOptions schedule;
  std::vector<torch::Tensor> parameters;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<WeightAverage> average;
  std::unique_ptr<SegmentTrainer> gst;
  std::unique_ptr<GraphTensorCache> train_cache, valid_cache;
  std::unique_ptr<Sampler> sampler;

  // The loop's counters.
  int64_t iteration = 0;
  bool stop_agreed = false;  // across processes: a stop asked of any rank, agreed with the gradients
  bool interrupted = false;
  nlohmann::json logged;
  TrainResult result;
  std::unique_ptr<Progress> progress;
  Clock::time_point run_start, interval_start, last_checkpoint;
  SlatePhaseSeconds phases;  // the run's step phases (TrainResult)
  double optimizer_seconds = 0, validation_seconds = 0;
  double run_wait_start = 0, interval_wait_start = 0;
  double interval_loss = 0, last_grad_norm = 0, last_wait_fraction = 0;
  int64_t interval_iterations = 0, interval_configs = 0;

  void build_model();
  void start_run_files();
  void checkpoint();
  torch::Tensor batch_loss(const Batch& batch);
  nlohmann::json log_line();
};

Session::Session(const SessionRequest& request, dist::Group* group)
    : state_(std::make_unique<State>()) {
  state_->group = group;
  set_up(request);
}

Session::Session(const SessionRequest& request, const data::Collection& train_set,
                 const data::Collection* valid_set, dist::Group* group)
    : state_(std::make_unique<State>()) {
  state_->group = group;
  state_->train_set = &train_set;
  state_->valid_set = valid_set;
  set_up(request);
}

Session::~Session() = default;

void Session::set_up(const SessionRequest& request) {
  State& s = *state_;
  s.leader = s.group == nullptr || s.group->leader();
  s.folder = run::RunFolder(request.run_dir);
  s.resume = request.resume;
  // One writer per run folder, from the first look at it (its files, an overwrite's removal) to
  // the last write; a refused or failed start leaves no folder behind.
  if (s.leader) s.lock = s.folder.lock(request.writer);
  s.options = resolve_session_options(request, s.folder, s.leader, s.train_set);
  if (s.train_set == nullptr) {
    const data::CollectionId id = data::CollectionId::parse(s.options.collection);
    const data::LoadOptions load = s.options.load_options();
    s.owned_train = io::open_collection(s.options.data, id, s.options.split, load);
    if (!s.options.valid_split.empty())
      s.owned_valid = io::open_collection(
          s.options.valid_data.empty() ? s.options.data : s.options.valid_data, id,
          s.options.valid_split, load);
    s.train_set = s.owned_train.get();
    s.valid_set = s.owned_valid.get();
  }
  if (request.overwrite && s.leader) s.folder.remove_run_files();
  if (s.group) {
    check_trainable_apart(s.options);
    dist::check_same_on_every_rank(*s.group, "options", options_every_rank_shares(s.options));
    dist::check_same_on_every_rank(
        *s.group, "data",
        dist::collection_digest(*s.train_set) +
            (s.valid_set ? " " + dist::collection_digest(*s.valid_set) : std::string()));
  }
  s.build_model();
  // Everything that can refuse the options or the data has run: only now does the run folder
  // get its files, so a refused start leaves nothing behind.
  s.start_run_files();
  s.progress = std::make_unique<Progress>("train", s.options.iterations, "it");
  model::reset_gemm_tallies();  // the run's products (gemm_ledger.h), validation's included
  s.run_start = s.interval_start = s.last_checkpoint = Clock::now();
  s.run_wait_start = s.interval_wait_start = s.sampler->wait_seconds();
  s.model->train();
}

void Session::State::build_model() {
  apply_gst_options(options);  // segment_nodes first: layout_shapes "auto" is off with segments
  options.model = resolve_model_options(options.model, *train_set);
  threads = model::set_threads(options.threads);
  model::set_precision(model::parse_precision(options.precision));
  torch::manual_seed(options.seed);
  model = model::Ranker(options.model);
  model->set_share_rows(options.share_rows);
  std::fprintf(stderr, "train: model: %lld parameters\n",
               static_cast<long long>(model->parameter_count()));
  loss = parse_loss_spec(options.loss);
  if (options.model.head == "pairwise" && options.loss != TrainOptions{}.loss)
    std::fprintf(stderr,
                 "train: warning: the pairwise head trains on its own loss over pairs; --loss %s "
                 "is ignored\n",
                 options.loss.c_str());
  shift_invariant = loss->shift_invariant();
  pairwise = options.model.head == "pairwise";
  schedule = options.schedule();
  parameters = model->parameters();
  optimizer = make_optimizer(parameters, schedule);
  average = std::make_unique<WeightAverage>(options.swa_start, options.swa_every);
  if (options.gst_segment_nodes > 0) gst = std::make_unique<SegmentTrainer>(*train_set, options);
  int64_t first_batch = 0;
  if (resume) {
    const CheckpointState state =
        load_checkpoint(folder.checkpoint_path(), model, *optimizer, average.get(), gst.get());
    iteration = state.iteration;
    first_batch = state.next_batch;
  }
  if (group) {
    // Every rank starts from rank 0's weights (seeded alike, or loaded from one checkpoint).
    std::vector<torch::Tensor> state = model->parameters();
    for (const torch::Tensor& buffer : model->buffers()) state.push_back(buffer);
    dist::broadcast_from_leader(*group, state);
  }
  const model::GraphFeatureOptions features = model::graph_feature_options(options.model);
  train_cache = std::make_unique<GraphTensorCache>(*train_set, features);
  if (valid_set != nullptr && valid_set->size() > 0) {
    valid_cache = std::make_unique<GraphTensorCache>(*valid_set, features);
  } else {
    valid_set = nullptr;  // nothing to validate on
  }
  sampler = std::make_unique<Sampler>(*train_set, *train_cache, options.sampler(), first_batch);
  // A batch's slates meet only in the summed gradient, so each can run its forward and backward
  // apart (one slate per thread: a slate alone keeps two cores only ~60% busy in LibTorch's
  // operations) unless the forward draws random numbers (dropout: the draws would depend on the
  // threads' timing) or keeps state between slates (GST's embedding table). Apart, a step keeps
  // one slate's activations per thread instead of every slate's, and the gradients are summed
  // in slate order, so a run does not depend on the thread count.
  slates_apart = !gst && options.model.dropout == 0;
}

void Session::State::start_run_files() {
  if (!leader) return;  // the folder exists: the lock made it
  if (resume) {
    folder.truncate_metrics(iteration);
  } else {
    folder.start_metrics();
  }
  nlohmann::json config = options;
  config["world_size"] = group ? group->size() : 1;  // how many processes trained it
  folder.write_config(run::ModelType::Gnn, config);
}

void Session::State::checkpoint() {
  last_checkpoint = Clock::now();
  if (!leader) return;
  CheckpointState state;
  state.iteration = iteration;
  state.next_batch = sampler->next_index();
  state.options = options;
  save_checkpoint(folder.checkpoint_path(), model, *optimizer, state, average.get(), gst.get());
}

torch::Tensor Session::State::batch_loss(const Batch& batch) {
  const int64_t num_slates = static_cast<int64_t>(batch.slates.size());
  uint64_t slate_stream = static_cast<uint64_t>(batch.index) * batch.slates.size();
  auto slate_loss = [&](const model::Slate& slate) {
    if (pairwise) return pairwise_bce_loss(model->pairwise_logits(slate), slate.runtimes);
    return (*loss)(gst ? gst->forward(model, slate, slate_stream++)
                       : model->forward(slate, !shift_invariant),
                   slate.runtimes);
  };
  if (slates_apart) {
    // Across processes each rank computes its share of the slates; the shares' sums meet in one
    // allreduce and every rank takes the same optimiser step.
    torch::Tensor total = mean_loss_and_gradient(
        num_slates, threads,
        [&](int64_t i) { return slate_loss(batch.slates[static_cast<size_t>(i)]); }, parameters,
        group ? dist::share_of(num_slates, group->rank(), group->size())
              : std::pair<int64_t, int64_t>{0, -1},
        &phases);
    if (group) stop_agreed = dist::sum_loss_and_gradients(*group, total, parameters, stop_requested());
    return total;
  }
  const Clock::time_point start = Clock::now();
  torch::Tensor total = torch::zeros({});
  for (const model::Slate& slate : batch.slates) total = total + slate_loss(slate);
  phases.forward += seconds_since(start);
  return total / static_cast<double>(num_slates);
}

// The metrics line of the interval that ends now (its counters start again).
nlohmann::json Session::State::log_line() {
  const double seconds = seconds_since(interval_start);
  const double wait = sampler->wait_seconds() - interval_wait_start;
  last_wait_fraction = seconds > 0 ? std::min(1.0, wait / seconds) : 0.0;
  nlohmann::json line = {{"iteration", iteration},
                         {"loss", interval_loss / interval_iterations},
                         {"lr", learning_rate_at(schedule, iteration - 1)},
                         {"grad_norm", last_grad_norm},
                         {"configs_per_s", seconds > 0 ? interval_configs / seconds : 0.0},
                         {"data_wait_fraction", last_wait_fraction}};
  result.last_loss = interval_loss / interval_iterations;
  interval_loss = 0;
  interval_iterations = 0;
  interval_configs = 0;
  return line;
}

const TrainOptions& Session::options() const { return state_->options; }
const data::Collection& Session::train_set() const { return *state_->train_set; }
const data::Collection* Session::valid_set() const { return state_->valid_set; }
const run::RunFolder& Session::folder() const { return state_->folder; }
int64_t Session::iteration() const { return state_->iteration; }
const nlohmann::json& Session::logged() const { return state_->logged; }

bool Session::done() const {
  return state_->interrupted || state_->iteration >= state_->options.iterations;
}

bool Session::step() {
  State& s = *state_;
  s.logged = nullptr;
  if (s.group ? s.stop_agreed : stop_requested()) {
    s.interrupted = true;
    return false;
  }
  Batch batch = s.sampler->next();
  s.optimizer->zero_grad();
  torch::Tensor total = s.batch_loss(batch);
  const double loss_value = total.item<double>();
  check_data(std::isfinite(loss_value), "training", "loss",
             "not finite at iteration " + std::to_string(s.iteration) +
                 " (try a lower lr or a loss clip)");
  if (!s.slates_apart) {
    const Clock::time_point backward_start = Clock::now();
    total.backward();
    s.phases.backward += seconds_since(backward_start);
  }
  const Clock::time_point optimizer_start = Clock::now();
  s.last_grad_norm = optimizer_step(*s.optimizer, s.parameters, s.schedule, s.iteration);
  ++s.iteration;
  if (s.average->due(s.iteration)) s.average->add(s.model);
  s.optimizer_seconds += seconds_since(optimizer_start);
  s.interval_loss += loss_value;
  ++s.interval_iterations;
  s.interval_configs += batch.configs();

  const TrainOptions& o = s.options;
  const bool last = s.iteration == o.iterations;
  const bool validate_now =
      s.validating() && (last || (o.validate_every > 0 && s.iteration % o.validate_every == 0));
  if (s.iteration % std::max<int64_t>(1, o.log_every) == 0 || last || validate_now) {
    nlohmann::json line = s.log_line();
    if (validate_now) {
      const Clock::time_point validation_start = Clock::now();
      s.result.last_validation = validate(/*write_predictions=*/last);
      s.validation_seconds += seconds_since(validation_start);
      line.update(s.result.last_validation);
    }
    if (s.leader) s.folder.append_metrics(line);
    s.logged = std::move(line);
    s.interval_start = Clock::now();
    s.interval_wait_start = s.sampler->wait_seconds();
  }
  // By time too: a run killed before its first checkpoint by iterations could not resume. Only
  // the leader writes checkpoints, so ranks need not agree on the clock.
  const bool checkpoint_due_by_time =
      o.checkpoint_seconds > 0 && seconds_since(s.last_checkpoint) >= o.checkpoint_seconds;
  if ((o.checkpoint_every > 0 && s.iteration % o.checkpoint_every == 0) ||
      (checkpoint_due_by_time && !last))
    s.checkpoint();
  // The running mean of the interval being logged, so the line shows a loss before the first
  // metrics line too (long --log-every intervals used to show "loss 0" until then).
  const double shown_loss =
      s.interval_iterations > 0 ? s.interval_loss / s.interval_iterations : s.result.last_loss;
  char extra[96];
  std::snprintf(extra, sizeof extra, "loss %.4g, data wait %.0f%%", shown_loss,
                100 * s.last_wait_fraction);
  s.progress->update(s.iteration, extra);
  return true;
}

nlohmann::json Session::validate(bool write_predictions) {
  State& s = *state_;
  if (!s.validating()) return nlohmann::json();
  nlohmann::json metrics = nlohmann::json::object();
  if (s.options.validate_train_graphs != 0) {
    // The fit on training graphs, by the same sample size and metrics, beside validation's.
    const nlohmann::json fit = train::validate(s.model, *s.train_set, *s.train_cache, s.options,
                                               nullptr, s.group, s.options.validate_train_graphs);
    for (const auto& [name, value] : fit.items())
      metrics[name == "valid_graphs" ? "train_graphs" : "train_" + name] = value;
  }
  if (s.valid_set == nullptr) return metrics;
  std::vector<GraphPrediction> predictions;
  metrics.update(train::validate(s.model, *s.valid_set, *s.valid_cache, s.options,
                                 write_predictions ? &predictions : nullptr, s.group));
  if (write_predictions && s.leader) {
    std::string text;
    for (size_t i = 0; i < predictions.size() &&
                       static_cast<int64_t>(i) < s.options.valid_predictions_graphs;
         ++i) {
      text += nlohmann::json{{"graph", predictions[i].name},
                             {"config_indices", predictions[i].config_indices},
                             {"predicted", predictions[i].predicted},
                             {"measured", predictions[i].measured}}
                  .dump() +
              "\n";
    }
    s.folder.write_valid_predictions(text);
  }
  return metrics;
}

TrainResult Session::finish() {
  State& s = *state_;
  s.checkpoint();
  TrainResult& result = s.result;
  result.iterations = s.iteration;
  result.interrupted = s.interrupted;
  const double run_seconds = seconds_since(s.run_start);
  result.seconds = run_seconds;
  result.forward_seconds = s.phases.forward;
  result.backward_seconds = s.phases.backward;
  result.summing_seconds = s.phases.summing;
  result.optimizer_seconds = s.optimizer_seconds;
  result.validation_seconds = s.validation_seconds;
  result.data_wait_fraction =
      run_seconds > 0
          ? std::min(1.0, (s.sampler->wait_seconds() - s.run_wait_start) / run_seconds)
          : 0;
  if (!result.interrupted && s.average->count() > 0) {
    // The checkpoint keeps the last weights (to resume); model.pt and the final validation use
    // the average.
    s.average->copy_to(s.model);
    if (s.validating()) {
      result.last_validation = validate();
      nlohmann::json line = {{"iteration", s.iteration}, {"swa_snapshots", s.average->count()}};
      line.update(result.last_validation);
      if (s.leader) s.folder.append_metrics(line);
    }
  }
  if (!result.interrupted && s.leader) model::save_model(s.model, s.folder.model_path());
  if (s.group && s.iteration > 0) {
    result.allreduce_seconds_per_step = s.group->allreduce_seconds() / s.group->allreduce_calls();
    result.allreduce_bytes_per_step = s.group->allreduce_bytes() / s.group->allreduce_calls();
  }
  if (result.interrupted) {
    // finish() would report the full total; end the progress line where the run stopped.
    std::fprintf(stderr, "\n");
  } else {
    s.progress->finish();
  }
  return result;
}

TrainResult train(Session& session, const IterationObserver& observer) {
  while (!session.done())
    if (session.step() && observer) observer(session.iteration(), session.logged());
  return session.finish();
}

}  // namespace graphcost::train
