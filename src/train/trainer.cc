#include "train/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/progress.h"
#include "eval/metrics.h"
#include "model/config_classes.h"
#include "model/predict.h"
#include "model/tta.h"
#include "model/threads.h"
#include "train/batch_gradient.h"
#include "train/checkpoint.h"
#include "train/gst.h"
#include "train/losses.h"
#include "train/pairwise_loss.h"
#include "train/schedule.h"

namespace graphcost::train {

namespace {

std::atomic<bool> stop_flag{false};

extern "C" void on_interrupt(int signal) {
  stop_flag = true;
  std::signal(signal, SIG_DFL);  // a second one ends the process at once
}

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

double mean_or_nan(double sum, int64_t count) { return count ? sum / count : std::nan(""); }

}  // namespace

// SIGTERM too: job schedulers and `kill` send it before SIGKILL, and a run should checkpoint then.
void install_interrupt_handler() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}
void request_stop() { stop_flag = true; }
bool stop_requested() { return stop_flag; }
void clear_stop_request() { stop_flag = false; }

nlohmann::json validate(model::Ranker& model, const data::Collection& valid,
                        GraphTensorCache& cache, const TrainOptions& options,
                        std::vector<GraphPrediction>* predictions) {
  torch::NoGradGuard no_grad;
  model::RankerModeGuard eval_mode(model, /*training=*/false);
  const bool tile = valid.id().kind == data::ConfigKind::Tile;
  const std::vector<std::string> names =
      tile ? std::vector<std::string>{"top1_error", "top5_error", "top10_error", "tile_score"}
           : std::vector<std::string>{"kendall_tau", "opa"};
  const int64_t chunk = std::max<int64_t>(1, options.valid_batch);
  // Graphs are scored apart, one per core (model::run_on_workers: a score does not depend on the
  // thread count), into slots that are then summed in graph order, so the result is the same
  // for any thread count. A graph left out (no runtimes, < 2 configurations) keeps no values.
  std::vector<GraphPrediction> scored(static_cast<size_t>(valid.size()));
  std::vector<std::vector<double>> values(static_cast<size_t>(valid.size()));
  model::run_on_workers(valid.size(), at::get_num_threads(), [&](int64_t g) {
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
    // Pairwise scores (wins) are comparable only within one call, so the graph is scored at once.
    // Attention scores depend on their slate: every configuration is scored against the same
    // slate_size - 1 anchors, a slate of the training size (model/tta.h).
    const bool pairwise = model->options().head == "pairwise";
    const bool anchored = model->options().attention && !pairwise && !segments;
    if (anchored) {
      prediction.predicted = model::score_configs_anchored(
          model, cache.get(g), configs, indices, chunk,
          std::max<int64_t>(1, options.slate_size - 1),
          (options.seed ^ kValidationStream) + static_cast<uint64_t>(g));
    } else {
      // In slates of valid_batch, the graph's configuration-independent work computed once
      // (score_configs; by segments for a model trained by them).
      prediction.predicted =
          model::score_configs(model, cache.get(g), configs, indices, chunk, segments.get());
    }
    for (int64_t j : indices) prediction.measured.push_back(configs.runtimes[j]);
    const auto& p = prediction.predicted;
    const auto& m = prediction.measured;
    values[g] = tile ? std::vector<double>{eval::top_k_error(p, m, 1), eval::top_k_error(p, m, 5),
                                           eval::top_k_error(p, m, 10), eval::tile_score(p, m)}
                     : std::vector<double>{eval::kendall_tau(p, m), eval::ordered_pair_accuracy(p, m)};
    prediction.config_indices = std::move(indices);
  });
  std::vector<double> sums(names.size(), 0);
  std::vector<int64_t> counts(names.size(), 0);
  int64_t graphs = 0;
  for (int64_t g = 0; g < valid.size(); ++g) {
    if (values[g].empty()) continue;
    for (size_t i = 0; i < names.size(); ++i) {
      // Undefined per-graph values (constant predictions or runtimes) are left out of the mean.
      if (std::isfinite(values[g][i])) {
        sums[i] += values[g][i];
        ++counts[i];
      }
    }
    ++graphs;
    if (predictions) predictions->push_back(std::move(scored[g]));
  }
  nlohmann::json result = {{"valid_graphs", graphs}};
  for (size_t i = 0; i < names.size(); ++i) {
    const double mean = mean_or_nan(sums[i], counts[i]);
    result[names[i]] = std::isfinite(mean) ? nlohmann::json(mean) : nlohmann::json(nullptr);
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
                  const IterationObserver& observer) {
  namespace fs = std::filesystem;
  const std::string checkpoint_path = (fs::path(run_dir) / "checkpoint.pt").string();
  const std::string metrics_path = (fs::path(run_dir) / "metrics.jsonl").string();
  TrainOptions options = requested;
  if (resume) {
    check_data(fs::exists(checkpoint_path), checkpoint_path, "", "no checkpoint to resume from");
    options = read_checkpoint_options(checkpoint_path);
    options.iterations = requested.iterations;
    options.threads = requested.threads;
    options.share_rows = requested.share_rows;
    // The data may have moved since: the run reads it where it is now, and records that.
    options.data = requested.data;
    options.valid_data = requested.valid_data;
  }
  check_train_options(options);
  options.model = resolve_model_options(options.model, train_set);
  apply_gst_options(options);
  const int threads = model::set_threads(options.threads);
  model::set_row_sharing(options.share_rows);
  torch::manual_seed(options.seed);
  model::Ranker model(options.model);
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

  const model::GraphFeatureOptions features = model::graph_feature_options(options.model);
  GraphTensorCache train_cache(train_set, features);
  std::unique_ptr<GraphTensorCache> valid_cache;
  const bool validating = valid_set != nullptr && valid_set->size() > 0;
  if (validating) valid_cache = std::make_unique<GraphTensorCache>(*valid_set, features);
  Sampler sampler(train_set, train_cache, options.sampler(), first_batch);

  // Everything that can refuse the options or the data has run: only now does the run folder
  // get its files, so a refused start leaves nothing behind.
  std::error_code ignored;
  fs::create_directories(run_dir, ignored);
  check_data(fs::is_directory(run_dir), run_dir, "", "cannot create the run directory");
  if (resume) {
    truncate_metrics(metrics_path, iteration);
  } else {
    write_file_atomically(metrics_path, "");
  }
  nlohmann::json config = options;
  write_file_atomically((fs::path(run_dir) / "config.json").string(), config.dump(2) + "\n");

  auto checkpoint = [&](int64_t done) {
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
  model->train();
  while (iteration < options.iterations) {
    if (stop_requested()) {
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
      total = mean_loss_and_gradient(
          num_slates, threads,
          [&](int64_t i) { return slate_loss(batch.slates[static_cast<size_t>(i)]); },
          parameters);
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
        result.last_validation =
            validate(model, *valid_set, *valid_cache, options, last ? &predictions : nullptr);
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
          write_file_atomically((fs::path(run_dir) / "valid_predictions.jsonl").string(), text);
        }
      }
      append_line(metrics_path, line);
      if (observer) logged = line;
      interval_loss = 0;
      interval_iterations = 0;
      interval_configs = 0;
      interval_start = std::chrono::steady_clock::now();
      interval_wait_start = sampler.wait_seconds();
    }
    if (options.checkpoint_every > 0 && iteration % options.checkpoint_every == 0)
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
      result.last_validation = validate(model, *valid_set, *valid_cache, options);
      nlohmann::json line = {{"iteration", iteration}, {"swa_snapshots", average.count()}};
      line.update(result.last_validation);
      append_line(metrics_path, line);
    }
  }
  if (!result.interrupted) model::save_model(model, (fs::path(run_dir) / "model.pt").string());
  if (result.interrupted) {
    // finish() would report the full total; end the progress line where the run stopped.
    std::fprintf(stderr, "\n");
  } else {
    progress.finish();
  }
  return result;
}

}  // namespace graphcost::train
