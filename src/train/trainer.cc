#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "dist/collectives.h"
#include "eval/summary.h"
#include "infer/scoring.h"
#include "model/forward/config_classes.h"
#include "model/io/model_file.h"
#include "model/kernels/threads.h"
#include "model/scoring/predict.h"
#include "run/folder_lock.h"
#include "run/run_config.h"
#include "train/batch_gradient.h"
#include "train/checkpoint.h"
#include "train/gst.h"
#include "train/losses.h"
#include "train/pairwise_loss.h"
#include "train/schedule.h"

namespace graphcost::train {

namespace {

// Validation samples come from their own stream family so they never overlap the batches'.
constexpr uint64_t kValidationStream = 0x76616c6964ULL;

void append_line(const std::string& path, const nlohmann::json& line) {
  std::ofstream out(path, std::ios::app);
  out << line.dump() << "\n";
  out.flush();
  check_data(out.good(), path, "", "cannot append");
}

// On resume, drops the lines logged after the checkpoint: they are about to be redone.
void truncate_metrics(const std::string& path, int64_t iteration) {
  if (!std::filesystem::exists(path)) return;
  std::istringstream in(read_file(path));
  std::string kept, line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object() && parsed.value("iteration", int64_t{0}) <= iteration)
      kept += line + "\n";
  }
  write_file_atomically(path, kept);
}

// Validation across ranks: each scored the graphs it owns; afterwards every rank holds every
// graph's predictions exactly as its owner computed them (kept: the graphs that were scored), so
// the metrics are computed in graph order as in one process.
void share_validation(dist::Group& group, const data::Collection& valid,
                      std::vector<GraphPrediction>& scored, std::vector<char>& kept) {
  std::vector<std::vector<double>> indices(scored.size()), predicted(scored.size()),
      measured(scored.size());
  for (size_t g = 0; g < scored.size(); ++g) {
    indices[g].assign(scored[g].config_indices.begin(), scored[g].config_indices.end());
    predicted[g] = std::move(scored[g].predicted);
    measured[g] = std::move(scored[g].measured);
  }
  dist::all_gather_rows(group, indices);
  dist::all_gather_rows(group, predicted);
  dist::all_gather_rows(group, measured);
  for (size_t g = 0; g < scored.size(); ++g) {
    kept[g] = indices[g].empty() ? 0 : 1;
    if (!kept[g]) continue;
    scored[g].graph = valid.graph(static_cast<int64_t>(g)).name;
    scored[g].config_indices.assign(indices[g].begin(), indices[g].end());
    scored[g].predicted = std::move(predicted[g]);
    scored[g].measured = std::move(measured[g]);
  }
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

nlohmann::json validate(model::Ranker& model, const data::Collection& valid,
                        GraphTensorCache& cache, const TrainOptions& options,
                        std::vector<GraphPrediction>* predictions, dist::Group* group) {
  torch::NoGradGuard no_grad;
  model::RankerModeGuard eval_mode(model, /*training=*/false);
  // Graphs are scored apart, one per core (model::run_apart: a score does not depend on the
  // thread count), into slots that are then read in graph order, so the result is the same
  // for any thread count. A graph left out (no runtimes, < 2 configurations) keeps no scores.
  std::vector<GraphPrediction> scored(static_cast<size_t>(valid.size()));
  std::vector<char> kept(static_cast<size_t>(valid.size()), 0);
  model::run_apart(valid.size(), at::get_num_threads(), [&](int64_t g) {
    if (group && group->owner(g) != group->rank()) return;  // another rank scores it
    const data::ConfigView configs = valid.configs(g);
    if (!configs.has_runtimes() || configs.count < 2) return;
    Random random = random_stream(options.seed ^ kValidationStream, static_cast<uint64_t>(g));
    // <= 0 means every configuration.
    const int64_t sample = options.valid_configs_per_graph > 0 ? options.valid_configs_per_graph : configs.count;
    std::vector<int64_t> indices = sample_without_replacement(random, configs.count, sample);
    std::sort(indices.begin(), indices.end());
    GraphPrediction& prediction = scored[g];
    prediction.graph = valid.graph(g).name;
    const auto segments = model::segments_for_model(valid.graph(g), model->options());
    // As eval scores a run (infer/scoring.h): attention models against the training slate
    // size - 1 anchors, the others in slates of valid_batch (by segments for a model trained
    // by them). Pairwise scores (wins) compare only within one call: the graph is one call.
    infer::NeuralScoring how;
    how.slate_size = std::max<int64_t>(1, options.valid_batch);
    how.anchors = infer::default_anchors(model->options(), options.slate_size, segments != nullptr);
    how.stream_seed = (options.seed ^ kValidationStream) + static_cast<uint64_t>(g);
    prediction.predicted =
        infer::score_neural(model, cache.get(g), segments.get(), configs, indices, how);
    for (int64_t j : indices) prediction.measured.push_back(configs.runtimes[j]);
    prediction.config_indices = std::move(indices);
    kept[g] = 1;
  });
  if (group) share_validation(*group, valid, scored, kept);
  // The metrics eval reports for the collection's kind (eval::evaluate), means over the graphs
  // that have them.
  std::vector<eval::GraphScores> graphs;
  for (int64_t g = 0; g < valid.size(); ++g) {
    if (!kept[g]) continue;
    graphs.push_back({scored[g].graph, scored[g].predicted, scored[g].measured});
    if (predictions) predictions->push_back(std::move(scored[g]));
  }
  const eval::MetricTable table = eval::evaluate(valid.id().kind, graphs);
  nlohmann::json result = {{"valid_graphs", static_cast<int64_t>(graphs.size())}};
  for (size_t i = 0; i < table.metric_names.size(); ++i) {
    const double mean = table.means[i];
    result[table.metric_names[i]] = std::isfinite(mean) ? nlohmann::json(mean) : nlohmann::json(nullptr);
  }
  return result;
}

model::ModelOptions resolve_model_options(const model::ModelOptions& options,
                                          const data::Collection& collection) {
  model::ModelOptions resolved = options;
  resolved.kind = collection.id().kind;
  resolved.node_feature_width = collection.node_feature_width();
  resolved.config_width = collection.config_width();
  return resolved;
}

TrainResult train(const TrainOptions& requested, const data::Collection& train_set,
                  const data::Collection* valid_set, const std::string& run_dir, bool resume,
                  dist::Group* group, const IterationObserver& observer) {
  namespace fs = std::filesystem;
  // Ranks other than 0 write nothing: the run folder is rank 0's.
  const bool leader = group == nullptr || group->leader();
  // One writer per run folder: taken before anything is read from it (a front-end that already
  // holds it shares its lock); a refused or failed start leaves no folder behind.
  std::unique_ptr<run::FolderLock> folder_lock;
  if (leader) folder_lock = std::make_unique<run::FolderLock>(run_dir, "graphcost train");
  const std::string checkpoint_path = (fs::path(run_dir) / "checkpoint.pt").string();
  const std::string metrics_path = (fs::path(run_dir) / "metrics.jsonl").string();
  TrainOptions options = requested;
  if (resume) {
    check_data(fs::exists(checkpoint_path), checkpoint_path, "", "no checkpoint to resume from");
    options = read_checkpoint_options(checkpoint_path);
    // The options that may change on resume (train/options.h): the iteration count, threads,
    // and where the data lives now (the run records that).
    apply_resume_changes(requested, options);
  }
  // The model's options are checked with the kind and widths of the data (the architecture
  // check depends on the kind); they are resolved for good below.
  check_train_options([&] {
    TrainOptions resolved = options;
    resolved.model = resolve_model_options(options.model, train_set);
    return resolved;
  }());
  if (group) {
    check_trainable_apart(options);
    dist::check_same_on_every_rank(*group, "options", options_every_rank_shares(options));
    dist::check_same_on_every_rank(
        *group, "data",
        dist::collection_digest(train_set) +
            (valid_set ? " " + dist::collection_digest(*valid_set) : std::string()));
  }
  options.model = resolve_model_options(options.model, train_set);
  apply_gst_options(options);
  const int threads = model::set_threads(options.threads);
  torch::manual_seed(options.seed);
  model::Ranker model(options.model);
  model->set_share_rows(options.share_rows);
  std::fprintf(stderr, "train: model: %lld parameters\n",
               static_cast<long long>(model->parameter_count()));
  const std::unique_ptr<WeightedLoss> loss = parse_loss_spec(options.loss);
  if (options.model.head == "pairwise" && options.loss != TrainOptions{}.loss)
    std::fprintf(stderr,
                 "train: warning: the pairwise head trains on its own loss over pairs; --loss %s "
                 "is ignored\n",
                 options.loss.c_str());
  // Ranking losses ignore the score terms every configuration shares: skip computing them.
  const bool shift_invariant = loss->shift_invariant();
  const ScheduleOptions schedule = options.schedule();
  const std::vector<torch::Tensor> parameters = model->parameters();
  const std::unique_ptr<torch::optim::Optimizer> optimizer = make_optimizer(parameters, schedule);

  int64_t iteration = 0;
  int64_t first_batch = 0;
  WeightAverage average(options.swa_start, options.swa_every);
  std::unique_ptr<SegmentTrainer> gst;
  if (options.gst_segment_nodes > 0) gst = std::make_unique<SegmentTrainer>(train_set, options);
  if (resume) {
    const CheckpointState state =
        load_checkpoint(checkpoint_path, model, *optimizer, &average, gst.get());
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
  GraphTensorCache train_cache(train_set, features);
  std::unique_ptr<GraphTensorCache> valid_cache;
  const bool validating = valid_set != nullptr && valid_set->size() > 0;
  if (validating) valid_cache = std::make_unique<GraphTensorCache>(*valid_set, features);
  Sampler sampler(train_set, train_cache, options.sampler(), first_batch);

  // Everything that can refuse the options or the data has run: only now does the run folder
  // get its files, so a refused start leaves nothing behind.
  if (leader) {  // the folder exists: the lock made it
    if (resume) {
      truncate_metrics(metrics_path, iteration);
    } else {
      write_file_atomically(metrics_path, "");
    }
    nlohmann::json config = options;
    config["world_size"] = group ? group->size() : 1;  // how many processes trained it
    run::write_run_config(run_dir, run::ModelType::Gnn, config);
  }

  auto last_checkpoint = std::chrono::steady_clock::now();
  auto checkpoint = [&](int64_t done) {
    last_checkpoint = std::chrono::steady_clock::now();
    if (!leader) return;
    CheckpointState state;
    state.iteration = done;
    state.next_batch = sampler.next_index();
    state.options = options;
    save_checkpoint(checkpoint_path, model, *optimizer, state, &average, gst.get());
  };

  TrainResult result;
  Progress progress("train", options.iterations, "it");
  double interval_loss = 0, last_grad_norm = 0, last_wait_fraction = 0;
  const auto run_start = std::chrono::steady_clock::now();
  const double run_wait_start = sampler.wait_seconds();
  int64_t interval_iterations = 0, interval_configs = 0;
  auto interval_start = std::chrono::steady_clock::now();
  double interval_wait_start = sampler.wait_seconds();
  const int64_t log_every = std::max<int64_t>(1, options.log_every);
  const bool pairwise = options.model.head == "pairwise";  // its own loss, over pairs
  // A batch's slates meet only in the summed gradient, so each can run its forward and backward
  // apart (one slate per thread: a slate alone keeps two cores only ~60% busy in LibTorch's
  // operations) unless the forward draws random numbers (dropout: the draws would depend on the
  // threads' timing) or keeps state between slates (GST's embedding table). Apart, a step keeps
  // one slate's activations per thread instead of every slate's, and the gradients are summed
  // in slate order, so a run does not depend on the thread count.
  const bool slates_apart = !gst && options.model.dropout == 0;
  // Across processes, a stop asked of one rank travels with the gradients and every rank stops
  // after the same step (a rank leaving alone would leave the others waiting in a collective).
  bool stop_agreed = false;
  model->train();
  while (iteration < options.iterations) {
    if (group ? stop_agreed : stop_requested()) {
      result.interrupted = true;
      break;
    }
    Batch batch = sampler.next();
    optimizer->zero_grad();
    const int64_t num_slates = static_cast<int64_t>(batch.slates.size());
    uint64_t slate_stream = static_cast<uint64_t>(batch.index) * batch.slates.size();
    auto slate_loss = [&](const model::Slate& slate) {
      if (pairwise) return pairwise_bce_loss(model->pairwise_logits(slate), slate.runtimes);
      return (*loss)(gst ? gst->forward(model, slate, slate_stream++)
                         : model->forward(slate, !shift_invariant),
                     slate.runtimes);
    };
    torch::Tensor total;
    if (slates_apart) {
      // Across processes each rank computes its share of the slates; the shares' sums meet in
      // one allreduce and every rank takes the same optimiser step.
      total = mean_loss_and_gradient(
          num_slates, threads,
          [&](int64_t i) { return slate_loss(batch.slates[static_cast<size_t>(i)]); },
          parameters,
          group ? dist::share_of(num_slates, group->rank(), group->size())
                : std::pair<int64_t, int64_t>{0, -1});
      if (group)
        stop_agreed = dist::sum_loss_and_gradients(*group, total, parameters, stop_requested());
    } else {
      total = torch::zeros({});
      for (const model::Slate& slate : batch.slates) total = total + slate_loss(slate);
      total = total / static_cast<double>(num_slates);
    }
    const double loss_value = total.item<double>();
    check_data(std::isfinite(loss_value), "training", "loss",
               "not finite at iteration " + std::to_string(iteration) +
                   " (try a lower lr or a loss clip)");
    if (!slates_apart) total.backward();
    last_grad_norm = optimizer_step(*optimizer, parameters, schedule, iteration);
    ++iteration;
    if (average.due(iteration)) average.add(model);
    interval_loss += loss_value;
    ++interval_iterations;
    interval_configs += batch.configs();

    const bool last = iteration == options.iterations;
    const bool validate_now =
        validating &&
        (last || (options.validate_every > 0 && iteration % options.validate_every == 0));
    nlohmann::json logged;  // this iteration's metrics line, for the observer
    if (iteration % log_every == 0 || last || validate_now) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - interval_start).count();
      const double wait = sampler.wait_seconds() - interval_wait_start;
      last_wait_fraction = seconds > 0 ? std::min(1.0, wait / seconds) : 0.0;
      nlohmann::json line = {
          {"iteration", iteration},
          {"loss", interval_loss / interval_iterations},
          {"lr", learning_rate_at(schedule, iteration - 1)},
          {"grad_norm", last_grad_norm},
          {"configs_per_s", seconds > 0 ? interval_configs / seconds : 0.0},
          {"data_wait_fraction", last_wait_fraction}};
      result.last_loss = interval_loss / interval_iterations;
      if (validate_now) {
        std::vector<GraphPrediction> predictions;
        result.last_validation = validate(model, *valid_set, *valid_cache, options,
                                          last ? &predictions : nullptr, group);
        line.update(result.last_validation);
        if (last) {
          std::string text;
          for (size_t i = 0;
               i < predictions.size() && static_cast<int64_t>(i) < options.valid_predictions_graphs;
               ++i) {
            text += nlohmann::json{{"graph", predictions[i].graph},
                                   {"config_indices", predictions[i].config_indices},
                                   {"predicted", predictions[i].predicted},
                                   {"measured", predictions[i].measured}}
                        .dump() +
                    "\n";
          }
          if (leader)
            write_file_atomically((fs::path(run_dir) / "valid_predictions.jsonl").string(), text);
        }
      }
      if (leader) append_line(metrics_path, line);
      if (observer) logged = line;
      interval_loss = 0;
      interval_iterations = 0;
      interval_configs = 0;
      interval_start = std::chrono::steady_clock::now();
      interval_wait_start = sampler.wait_seconds();
    }
    // By time too: a run killed before its first checkpoint by iterations could not resume.
    // Only the leader writes checkpoints, so ranks need not agree on the clock.
    const bool checkpoint_due_by_time =
        options.checkpoint_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint).count() >=
            options.checkpoint_seconds;
    if ((options.checkpoint_every > 0 && iteration % options.checkpoint_every == 0) ||
        (checkpoint_due_by_time && !last))
      checkpoint(iteration);
    // The running mean of the interval being logged, so the line shows a loss before the first
    // metrics line too (long --log-every intervals used to show "loss 0" until then).
    const double shown_loss =
        interval_iterations > 0 ? interval_loss / interval_iterations : result.last_loss;
    char extra[96];
    std::snprintf(extra, sizeof extra, "loss %.4g, data wait %.0f%%", shown_loss,
                  100 * last_wait_fraction);
    progress.update(iteration, extra);
    if (observer) observer(iteration, logged);
  }
  checkpoint(iteration);
  result.iterations = iteration;
  const double run_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  result.data_wait_fraction =
      run_seconds > 0 ? std::min(1.0, (sampler.wait_seconds() - run_wait_start) / run_seconds) : 0;
  if (!result.interrupted && average.count() > 0) {
    // The checkpoint keeps the last weights (to resume); model.pt and the final validation use
    // the average.
    average.copy_to(model);
    if (validating) {
      result.last_validation = validate(model, *valid_set, *valid_cache, options, nullptr, group);
      nlohmann::json line = {{"iteration", iteration}, {"swa_snapshots", average.count()}};
      line.update(result.last_validation);
      if (leader) append_line(metrics_path, line);
    }
  }
  if (!result.interrupted && leader)
    model::save_model(model, (fs::path(run_dir) / "model.pt").string());
  if (group && iteration > 0) {
    result.allreduce_seconds_per_step = group->allreduce_seconds() / group->allreduce_calls();
    result.allreduce_bytes_per_step = group->allreduce_bytes() / group->allreduce_calls();
  }
  if (result.interrupted) {
    // finish() would report the full total; end the progress line where the run stopped.
    std::fprintf(stderr, "\n");
  } else {
    progress.finish();
  }
  return result;
}

}  // namespace graphcost::train
