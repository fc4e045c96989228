#include "train/trainer.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "core/atomic_file.h"
#include "core/error.h"
#include "eval/metrics.h"
#include "model/io/model_file.h"
#include "model/kernels/threads.h"
#include "model/scoring/predict.h"
#include "model/scoring/tta.h"
#include "test_collection.h"
#include "train/checkpoint.h"
#include "train/sampler.h"

namespace graphcost::train {
namespace {

namespace fs = std::filesystem;
using testing::make_test_collection;

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("graphcost_train_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

TrainOptions small_options() {
  TrainOptions options;
  options.iterations = 40;
  options.graphs_per_batch = 2;
  options.slate_size = 6;
  options.log_every = 10;
  options.validate_every = 20;
  options.valid_configs_per_graph = 8;
  options.checkpoint_every = 0;
  options.threads = 1;
  options.seed = 11;
  options.model.hidden = {8, 8};
  return options;
}

TEST(TrainOptions, JsonRoundTrip) {
  TrainOptions options;
  options.collection = "tile:xla";
  options.loss = "diffmat:1,mape:0.1";
  options.decay_at = {240000, 280000};
  options.seed = 7;
  options.lr = 3e-4;
  options.model.hidden = {64, 64};
  options.share_rows = false;
  nlohmann::json j = options;
  TrainOptions back;
  from_json(j, back);
  nlohmann::json again = back;
  EXPECT_EQ(j, again);
  EXPECT_EQ(back.decay_at, options.decay_at);
  EXPECT_EQ(back.loss, options.loss);
  EXPECT_EQ(back.model.hidden, options.model.hidden);
  EXPECT_FALSE(back.share_rows);
}

TEST(TrainOptions, UnknownKeyOrWrongTypeNamesTheKey) {
  TrainOptions options;
  try {
    from_json(nlohmann::json{{"iterations", 5}, {"learning_rate", 0.1}}, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.key(), "learning_rate");
  }
  try {
    from_json(nlohmann::json{{"iterations", "many"}}, options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.key(), "iterations");
  }
}

TEST(Trainer, LossDecreasesAndRunFilesAreWritten) {
  auto train_set = make_test_collection(data::ConfigKind::Layout, 4, 30, 1);
  auto valid_set = make_test_collection(data::ConfigKind::Layout, 2, 20, 2, "valid");
  TrainOptions options = small_options();
  options.iterations = 200;
  options.log_every = 20;
  options.validate_every = 100;
  options.lr = 1e-2;
  const std::string dir = fresh_dir("smoke");
  clear_stop_request();
  TrainResult result = train(options, *train_set, valid_set.get(), dir, false);
  EXPECT_EQ(result.iterations, 200);
  EXPECT_FALSE(result.interrupted);
  std::vector<nlohmann::json> lines = read_lines(dir + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 10u);
  for (const auto& line : lines) {
    for (const char* key : {"iteration", "loss", "configs_per_s", "data_wait_fraction"}) {
      EXPECT_TRUE(line.contains(key)) << key;
    }
  }
  EXPECT_TRUE(lines[4].contains("kendall_tau"));  // iteration 100
  EXPECT_TRUE(lines[9].contains("opa"));
  EXPECT_EQ(lines[9]["valid_graphs"], 2);
  EXPECT_LT(lines.back()["loss"].get<double>(), 0.8 * lines.front()["loss"].get<double>());
  EXPECT_GT(lines.back()["kendall_tau"].get<double>(), 0.5);  // runtimes are learnable
  EXPECT_EQ(read_lines(dir + "/valid_predictions.jsonl").size(), 2u);
  EXPECT_EQ(read_lines(dir + "/valid_predictions.jsonl")[0]["measured"].size(), 8u);
  const nlohmann::json config = nlohmann::json::parse(read_file(dir + "/config.json"));
  EXPECT_EQ(config["iterations"], 200);
  EXPECT_EQ(config["model"]["config_width"], 4);  // resolved from the data
  model::Ranker loaded = model::load_model(dir + "/model.pt");
  EXPECT_EQ(loaded->options().config_width, 4);
  fs::remove_all(dir);
}

// --validate-train-graphs: without a validation split, each validation scores the first N
// training graphs (all their configurations here) and logs train_<metric>; the last line's
// figure is the saved model's Kendall tau on those graphs, computed here from its scores.
TEST(Trainer, ValidationOnTrainingGraphsReportsTheFit) {
  auto train_set = make_test_collection(data::ConfigKind::Layout, 4, 30, 1);
  TrainOptions options = small_options();
  options.valid_split = "";
  options.validate_train_graphs = 2;
  options.valid_configs_per_graph = 0;  // every configuration
  options.valid_batch = 7;
  const std::string dir = fresh_dir("fit");
  clear_stop_request();
  train(options, *train_set, nullptr, dir, false);
  const std::vector<nlohmann::json> lines = read_lines(dir + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[1].contains("train_kendall_tau"));  // iteration 20
  EXPECT_FALSE(lines[0].contains("train_kendall_tau"));
  const nlohmann::json& last = lines.back();
  EXPECT_EQ(last["train_graphs"], 2);
  EXPECT_FALSE(last.contains("kendall_tau"));  // no validation split
  EXPECT_FALSE(last.contains("valid_graphs"));
  model::Ranker loaded = model::load_model(dir + "/model.pt");
  loaded->eval();
  GraphTensorCache cache(*train_set);
  double tau_sum = 0, opa_sum = 0;
  for (int64_t g = 0; g < 2; ++g) {
    const data::ConfigView configs = train_set->configs(g);
    std::vector<int64_t> all(static_cast<size_t>(configs.count));
    std::iota(all.begin(), all.end(), 0);
    const std::vector<double> scores =
        model::score_configs(loaded, cache.get(g), configs, all, options.valid_batch);
    const std::vector<double> measured(configs.runtimes, configs.runtimes + configs.count);
    tau_sum += eval::kendall_tau(scores, measured);
    opa_sum += eval::ordered_pair_accuracy(scores, measured);
  }
  EXPECT_NEAR(last["train_kendall_tau"].get<double>(), tau_sum / 2, 1e-12);
  EXPECT_NEAR(last["train_opa"].get<double>(), opa_sum / 2, 1e-12);
  fs::remove_all(dir);
}

// Two one-node graphs with hand-set tile configurations (3 columns): the distinct values of each
// column over both, in increasing order, and none for a column with more than `most`.
TEST(ConfigOneHot, DistinctValuesOverEveryGraphOfTheCollection) {
  std::vector<data::GraphRecord> records;
  const std::vector<std::vector<float>> rows = {{4, 0, 1, 1, 1, 2, 4, 0, 3}, {16, 1, 5}};
  for (size_t g = 0; g < rows.size(); ++g) {
    data::GraphRecord r;
    r.graph.name = "g" + std::to_string(g);
    r.graph.num_nodes = 1;
    r.graph.feature_width = 1;
    r.graph.opcodes = {0};
    r.graph.node_features = {1.0f};
    r.graph.build_adjacency();
    r.configs.kind = data::ConfigKind::Tile;
    r.configs.width = 3;
    r.configs.tile = rows[g];
    r.configs.count = static_cast<int64_t>(rows[g].size()) / 3;
    r.configs.runtimes.assign(r.configs.count, 1.0);
    records.push_back(std::move(r));
  }
  data::CollectionId id;
  id.kind = data::ConfigKind::Tile;
  id.space = "xla";
  const data::MemoryCollection c(id, "train", std::move(records));
  using V = std::vector<std::vector<double>>;
  EXPECT_EQ(distinct_config_values(c, 3), (V{{1, 4, 16}, {0, 1}, {}}));  // column 2: 1, 2, 3, 5
  EXPECT_EQ(distinct_config_values(c, 4), (V{{1, 4, 16}, {0, 1}, {1, 2, 3, 5}}));
  EXPECT_EQ(distinct_config_values(c, 1), (V{{}, {}, {}}));
}

// Training with config_one_hot stores the training data's values in the model, keeps them on
// resume (resolving again over other data), and refuses layout data.
TEST(ConfigOneHot, TrainingStoresTheValuesAndResumeKeepsThem) {
  auto train_set = make_test_collection(data::ConfigKind::Tile, 3, 20, 1);
  TrainOptions options = small_options();
  options.validate_every = 0;
  options.iterations = 20;
  options.model.config_one_hot = 8;
  const std::string dir = fresh_dir("one_hot");
  clear_stop_request();
  (void)train(options, *train_set, nullptr, dir, false);
  const std::vector<double> eight = {0, 1, 2, 3, 4, 5, 6, 7};  // random.below(8) over 63 rows
  model::Ranker loaded = model::load_model(dir + "/model.pt");
  ASSERT_EQ(loaded->options().config_values.size(), 6u);
  for (const std::vector<double>& values : loaded->options().config_values)
    EXPECT_EQ(values, eight);
  const model::ModelOptions resolved = loaded->options();
  auto other = make_test_collection(data::ConfigKind::Tile, 1, 2, 9);  // fewer values
  EXPECT_EQ(resolve_model_options(resolved, *other).config_values, resolved.config_values);
  auto layout = make_test_collection(data::ConfigKind::Layout, 1, 4, 1);
  model::ModelOptions on_layout;
  on_layout.config_one_hot = 8;
  EXPECT_THROW((void)resolve_model_options(on_layout, *layout), Error);
  fs::remove_all(dir);
}

// The run's phases (#39's accounting): forward and backward took time, the slate phases fit in
// the threads' time, and validation is timed only when it runs.
TEST(Trainer, ReportsWhereTheRunsTimeWent) {
  auto train_set = make_test_collection(data::ConfigKind::Layout, 3, 20, 1);
  auto valid_set = make_test_collection(data::ConfigKind::Layout, 2, 10, 2, "valid");
  // Slates apart on 1 and 2 threads, and together (dropout: one backward over the batch).
  for (const auto& [threads, dropout] :
       {std::pair{1, 0.0}, std::pair{2, 0.0}, std::pair{1, 0.25}}) {
    TrainOptions options = small_options();
    options.threads = threads;
    options.model.dropout = dropout;
    options.validate_every = 0;
    const std::string dir = fresh_dir("phases" + std::to_string(threads));
    clear_stop_request();
    const TrainResult with = train(options, *train_set, valid_set.get(), dir, false);
    EXPECT_GT(with.forward_seconds, 0.0);
    EXPECT_GT(with.backward_seconds, 0.0);
    EXPECT_GT(with.optimizer_seconds, 0.0);
    EXPECT_GT(with.validation_seconds, 0.0);  // once, at the end
    EXPECT_LE(with.forward_seconds + with.backward_seconds + with.summing_seconds,
              threads * with.seconds);
    EXPECT_LE(with.optimizer_seconds + with.validation_seconds, with.seconds);
    fs::remove_all(dir);
    const TrainResult without = train(options, *train_set, nullptr, dir, false);
    EXPECT_EQ(without.validation_seconds, 0.0);
    fs::remove_all(dir);
  }
}

TEST(Trainer, AttentionValidatesAgainstAnchorsWhateverTheValidationBatch) {
  // Scored in slates, an attention model's validation scores would change with the batch that
  // groups them; scored against the same anchors they do not.
  auto train_set = make_test_collection(data::ConfigKind::Layout, 3, 20, 5);
  auto valid_set = make_test_collection(data::ConfigKind::Layout, 2, 20, 6, "valid");
  std::vector<std::vector<double>> predicted;
  for (int64_t batch : {3, 8}) {
    TrainOptions options = small_options();
    options.iterations = 10;
    options.validate_every = 0;
    options.valid_batch = batch;
    options.model.attention = true;
    const std::string dir = fresh_dir("anchored" + std::to_string(batch));
    clear_stop_request();
    train(options, *train_set, valid_set.get(), dir, false);
    const std::vector<nlohmann::json> lines = read_lines(dir + "/valid_predictions.jsonl");
    ASSERT_EQ(lines.size(), 2u);
    predicted.push_back(lines[0]["predicted"].get<std::vector<double>>());
    fs::remove_all(dir);
  }
  ASSERT_EQ(predicted[0].size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(predicted[0][i], predicted[1][i], 1e-5) << i;
}

TEST(Trainer, ResumeGivesTheSameWeightsAsAnUninterruptedRun) {
  auto train_set = make_test_collection(data::ConfigKind::Tile, 3, 12, 4);
  auto valid_set = make_test_collection(data::ConfigKind::Tile, 2, 12, 5, "valid");
  TrainOptions options = small_options();
  options.decay_at = {25};
  options.model.kind = data::ConfigKind::Tile;
  options.collection = "tile:xla";
  const std::string whole = fresh_dir("whole"), parts = fresh_dir("parts");
  clear_stop_request();
  train(options, *train_set, valid_set.get(), whole, false);
  options.iterations = 20;
  train(options, *train_set, valid_set.get(), parts, false);
  options.iterations = 40;
  TrainResult resumed = train(options, *train_set, valid_set.get(), parts, true);
  EXPECT_EQ(resumed.iterations, 40);
  model::Ranker a = model::load_model(whole + "/model.pt");
  model::Ranker b = model::load_model(parts + "/model.pt");
  const auto pa = a->named_parameters();
  const auto pb = b->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& item : pa) EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << item.key();
  // The metrics log holds each interval once: 10, 20 (first part), 30, 40 (resumed).
  std::vector<nlohmann::json> lines = read_lines(parts + "/metrics.jsonl");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[2]["iteration"], 30);
  fs::remove_all(whole);
  fs::remove_all(parts);
}

// A batch's slates train on a thread each, their gradients summed in slate order: the weights do
// not depend on the thread count.
TEST(Trainer, LayoutWeightsDoNotDependOnTheThreadCount) {
  auto train_set = make_test_collection(data::ConfigKind::Layout, 4, 12, 4);
  TrainOptions options = small_options();
  options.iterations = 6;
  options.graphs_per_batch = 3;
  options.validate_every = 0;
  options.model.kind = data::ConfigKind::Layout;
  options.collection = "layout:xla:random";
  std::vector<std::string> dirs;
  for (int threads : {1, 2, 3}) {
    options.threads = threads;
    dirs.push_back(fresh_dir("threads" + std::to_string(threads)));
    clear_stop_request();
    train(options, *train_set, nullptr, dirs.back(), false);
  }
  model::Ranker one = model::load_model(dirs[0] + "/model.pt");
  for (size_t run = 1; run < dirs.size(); ++run) {
    model::Ranker other = model::load_model(dirs[run] + "/model.pt");
    const auto theirs = other->named_parameters();
    for (const auto& item : one->named_parameters())
      EXPECT_TRUE(torch::equal(item.value(), theirs[item.key()])) << run << " " << item.key();
  }
  for (const std::string& dir : dirs) fs::remove_all(dir);
}

// Validation scores its graphs one per core and sums their metrics in graph order: the result
// is the same for any thread count, and each graph's scores are those it gets scored alone.
TEST(Trainer, ValidationDoesNotDependOnTheThreadCount) {
  for (const bool attention : {false, true}) {
    for (const data::ConfigKind kind : {data::ConfigKind::Layout, data::ConfigKind::Tile}) {
      SCOPED_TRACE(std::string(kind == data::ConfigKind::Tile ? "tile" : "layout") +
                   (attention ? " with attention" : ""));
      auto valid_set = make_test_collection(kind, 5, 9, 21, "valid");
      TrainOptions options = small_options();
      options.valid_batch = 4;
      options.model.kind = kind;
      options.model.attention = attention;
      torch::manual_seed(5);
      model::Ranker ranker(resolve_model_options(options.model, *valid_set));
      GraphTensorCache cache(*valid_set);
      std::vector<nlohmann::json> results;
      std::vector<std::vector<GraphPrediction>> predictions(3);
      for (int threads : {1, 2, 3}) {
        model::set_threads(threads);
        results.push_back(validate(ranker, *valid_set, cache, options, &predictions[threads - 1]));
      }
      model::set_threads(1);
      EXPECT_TRUE(ranker->is_training());  // put back as it was
      ASSERT_EQ(results[0]["valid_graphs"], 5);
      ASSERT_EQ(predictions[0].size(), 5u);
      double tau_sum = 0;
      for (int64_t g = 0; g < 5; ++g) {
        const GraphPrediction& p = predictions[0][g];
        EXPECT_EQ(p.name, valid_set->graph(g).name);
        ASSERT_EQ(p.config_indices.size(), 8u);
        // The reference: graph g scored on its own, on the calling thread.
        ranker->eval();
        const std::vector<double> alone =
            attention ? model::score_configs_anchored(ranker, cache.get(g), valid_set->configs(g),
                                                      p.config_indices, options.valid_batch,
                                                      options.slate_size - 1,
                                                      (options.seed ^ 0x76616c6964ULL) + g)
                      : model::score_configs(ranker, cache.get(g), valid_set->configs(g),
                                             p.config_indices, options.valid_batch);
        ranker->train();
        EXPECT_EQ(p.predicted, alone) << g;
        tau_sum += eval::kendall_tau(p.predicted, p.measured);
        for (int run = 1; run < 3; ++run) {
          EXPECT_EQ(predictions[run][g].config_indices, p.config_indices) << run << " " << g;
          EXPECT_EQ(predictions[run][g].predicted, p.predicted) << run << " " << g;
        }
      }
      if (kind == data::ConfigKind::Layout) {
        EXPECT_DOUBLE_EQ(results[0]["kendall_tau"].get<double>(), tau_sum / 5);
      }
      EXPECT_EQ(results[1], results[0]);
      EXPECT_EQ(results[2], results[0]);
    }
  }
}

TEST(Trainer, StopRequestSavesACheckpointAndNoModel) {
  auto train_set = make_test_collection(data::ConfigKind::Tile, 3, 12, 4);
  TrainOptions options = small_options();
  const std::string dir = fresh_dir("stop");
  request_stop();
  TrainResult result = train(options, *train_set, nullptr, dir, false);
  clear_stop_request();
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_TRUE(fs::exists(dir + "/checkpoint.pt"));
  EXPECT_FALSE(fs::exists(dir + "/model.pt"));
  EXPECT_THROW(train(options, *train_set, nullptr, fresh_dir("none"), true),
               Error);  // nothing to resume
  fs::remove_all(dir);
}

TEST(Trainer, SigtermRequestsAStopLikeCtrlC) {
  install_interrupt_handler();
  clear_stop_request();
  std::raise(SIGTERM);  // without the handler this would end the test binary
  EXPECT_TRUE(stop_requested());
  clear_stop_request();
  install_interrupt_handler();  // the first signal restores the default action for a second
  std::raise(SIGINT);
  EXPECT_TRUE(stop_requested());
  clear_stop_request();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

}  // namespace
}  // namespace graphcost::train
