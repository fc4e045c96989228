#include "train/gst.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "model/io/model_file.h"
#include "test_collection.h"
#include "train/losses.h"
#include "train/trainer.h"

namespace graphcost::train {
namespace {

// One 40-node layout graph (a chain plus skips, every 4th node configurable) with 12
// configurations: 4 segments of 10 nodes.
std::unique_ptr<data::MemoryCollection> chain_collection() {
  Random random(3);
  data::GraphRecord record;
  data::Graph& g = record.graph;
  g.name = "chain";
  g.num_nodes = 40;
  g.feature_width = 8;
  for (int32_t v = 0; v < 40; ++v) {
    g.opcodes.push_back(v % 5);
    for (int f = 0; f < 8; ++f) g.node_features.push_back(static_cast<float>(random.uniform()));
    if (v > 0) g.edges.insert(g.edges.end(), {v, v - 1});
    if (v > 3) g.edges.insert(g.edges.end(), {v, v - 4});
    if (v % 4 == 1) g.configurable_nodes.push_back(v);
  }
  g.build_adjacency();
  data::ConfigTable& t = record.configs;
  t.kind = data::ConfigKind::Layout;
  t.count = 12;
  t.nodes = static_cast<int64_t>(g.configurable_nodes.size());
  t.width = 4;
  for (int64_t k = 0; k < t.count * t.nodes * t.width; ++k)
    t.layout.push_back(static_cast<int8_t>(static_cast<int>(random.below(7)) - 1));
  for (int64_t j = 0; j < t.count; ++j) t.runtimes.push_back(1.0 + 0.1 * j);
  record.source = "chain.npz";
  std::vector<data::GraphRecord> records;
  records.push_back(std::move(record));
  data::CollectionId id;
  id.kind = data::ConfigKind::Layout;
  id.space = "xla";
  id.search = "random";
  return std::make_unique<data::MemoryCollection>(id, "train", std::move(records));
}

TrainOptions gst_options(int64_t segment_nodes, int64_t per_step, double dropout) {
  TrainOptions o;
  o.seed = 5;
  o.gst_segment_nodes = segment_nodes;
  o.gst_segments_per_step = per_step;
  o.gst_stale_dropout = dropout;
  o.model.hidden = {8, 8};
  o.model.opcode_embedding = 4;
  o.model.node_feature_dim = 4;
  return o;
}

model::Ranker make_model(const TrainOptions& o, const data::Collection& c) {
  torch::manual_seed(1);
  return model::Ranker(resolve_model_options(o.model, c));
}

model::Slate slate_of(const data::Collection& c, GraphTensorCache& cache, int64_t g,
                      const std::vector<int64_t>& configs) {
  model::Slate s = model::make_slate(cache.get(g), c.configs(g), configs);
  s.graph_index = g;
  return s;
}

std::vector<torch::Tensor> gradients(model::Ranker& m) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m->parameters()) out.push_back(p.grad().clone());
  m->zero_grad();
  return out;
}

// The "loss" of every metrics.jsonl line of a run.
std::vector<double> losses(const std::string& dir) {
  std::vector<double> out;
  std::ifstream in(dir + "/metrics.jsonl");
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line)["loss"].get<double>());
  return out;
}

// Saves `from`'s table into an archive, serialises it and loads it into `to`.
void through_archive(const SegmentTrainer& from, SegmentTrainer& to) {
  torch::serialize::OutputArchive out;
  from.save(out);
  std::stringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  to.load(in, "ckpt");
}

TEST(Gst, OneSegmentEqualsOrdinaryTraining) {
  auto c = testing::make_test_collection(data::ConfigKind::Layout, 2, 8, 7);
  const TrainOptions o = gst_options(1000, 1, 0.5);
  model::Ranker m = make_model(o, *c);
  GraphTensorCache cache(*c);
  SegmentTrainer gst(*c, o);
  const auto loss = parse_loss_spec("listmle");
  const model::Slate slate = slate_of(*c, cache, 1, {0, 3, 5, 8, 2});
  const torch::Tensor a = (*loss)(gst.forward(m, slate, 0), slate.runtimes);
  a.backward();
  const auto ga = gradients(m);
  const torch::Tensor b = (*loss)(m->forward(slate), slate.runtimes);
  b.backward();
  const auto gb = gradients(m);
  EXPECT_FLOAT_EQ(a.item<float>(), b.item<float>());
  for (size_t i = 0; i < ga.size(); ++i) EXPECT_TRUE(torch::allclose(ga[i], gb[i], 1e-6, 1e-7));
  EXPECT_EQ(gst.last_fresh(), (std::vector<int64_t>{0}));
}

TEST(Gst, AllSegmentsFreshEqualsTheSegmentSum) {
  auto c = chain_collection();
  const TrainOptions o = gst_options(10, 4, 0.0);
  model::Ranker m = make_model(o, *c);
  GraphTensorCache cache(*c);
  SegmentTrainer gst(*c, o);
  ASSERT_EQ(gst.segments(0).segments.size(), 4u);
  const model::Slate slate = slate_of(*c, cache, 0, {1, 4, 9});
  const torch::Tensor weights = torch::tensor({1.0f, -1.5f, 2.0f});
  (gst.forward(m, slate, 3) * weights).sum().backward();
  const auto ga = gradients(m);
  (model::forward_by_segments(m, gst.segments(0), slate) * weights).sum().backward();
  const auto gb = gradients(m);
  for (size_t i = 0; i < ga.size(); ++i) EXPECT_TRUE(torch::allclose(ga[i], gb[i], 1e-5, 1e-6));
  EXPECT_EQ(gst.filled_without_gradient(), 0);
}

TEST(Gst, HistoricalTableFillsThenRefreshesOnlyRecomputedSegments) {
  auto c = chain_collection();
  const TrainOptions o = gst_options(10, 1, 0.0);
  model::Ranker m = make_model(o, *c);
  GraphTensorCache cache(*c);
  SegmentTrainer gst(*c, o);
  const model::SegmentedGraph& segments = gst.segments(0);
  const std::vector<int64_t> configs = {2, 7, 11};
  const model::Slate slate = slate_of(*c, cache, 0, configs);
  EXPECT_TRUE(std::isnan(gst.historical(0, 7, 0)));

  const torch::Tensor first = gst.forward(m, slate, 0).detach();
  const int64_t fresh = gst.last_fresh().at(0);
  EXPECT_EQ(gst.filled_without_gradient(), 3 * 3);  // 3 stale segments x 3 configurations
  // The score is the sum of the table's entries, each the segment's own forward.
  for (size_t i = 0; i < configs.size(); ++i) {
    double sum = 0;
    for (int64_t k = 0; k < 4; ++k) {
      const double entry = gst.historical(0, configs[i], k);
      EXPECT_NEAR(entry, model::forward_segment(m, segments.segments[k], slate)[i].item<double>(),
                  1e-5);
      sum += entry;
    }
    EXPECT_NEAR(first[i].item<double>(), sum, 1e-4);
  }

  // Change the weights, then step with another stream until another segment is chosen.
  std::vector<double> old(4);
  for (int64_t k = 0; k < 4; ++k) old[k] = gst.historical(0, 7, k);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : m->parameters()) p.add_(0.05);
  }
  uint64_t stream = 1;
  while (true) {
    gst.forward(m, slate, stream++);
    if (gst.last_fresh().at(0) != fresh) break;
  }
  const int64_t second = gst.last_fresh().at(0);
  EXPECT_EQ(gst.filled_without_gradient(), 9);  // nothing missing any more
  EXPECT_NEAR(gst.historical(0, 7, second),
              model::forward_segment(m, segments.segments[second], slate)[1].item<double>(), 1e-5);
  EXPECT_NE(gst.historical(0, 7, second), old[second]);
  for (int64_t k = 0; k < 4; ++k) {
    if (k != second && k != fresh) {
      EXPECT_EQ(gst.historical(0, 7, k), old[k]) << "segment " << k;
    }
  }
}

TEST(Gst, StaleDropoutKeepsASubsetScaledByOneOverKeep) {
  auto c = chain_collection();
  const double p = 0.5;
  const TrainOptions o = gst_options(10, 1, p);
  model::Ranker m = make_model(o, *c);
  GraphTensorCache cache(*c);
  const model::Slate slate = slate_of(*c, cache, 0, {0, 5});
  // Fill the table without dropout, then check every dropout draw against the subsets.
  SegmentTrainer full(*c, gst_options(10, 4, 0.0));
  full.forward(m, slate, 0);
  SegmentTrainer gst(*c, o);
  gst.forward(m, slate, 100);  // fills gst's own table where kept
  int dropped_some = 0;
  for (uint64_t stream = 0; stream < 12; ++stream) {
    const torch::Tensor got = gst.forward(m, slate, stream).detach();
    const int64_t fresh = gst.last_fresh().at(0);
    bool matched = false;
    for (int mask = 0; mask < 16 && !matched; ++mask) {
      if (mask & (1 << fresh)) continue;
      double expect = full.historical(0, 0, fresh);
      for (int k = 0; k < 4; ++k)
        if (mask & (1 << k)) expect += full.historical(0, 0, k) / (1 - p);
      if (std::fabs(expect - got[0].item<double>()) < 1e-4) {
        matched = true;
        dropped_some += __builtin_popcount(mask) < 3;
      }
    }
    EXPECT_TRUE(matched) << "stream " << stream;
    // The same seed and stream give the same draw.
    EXPECT_TRUE(torch::equal(got, gst.forward(m, slate, stream).detach()));
  }
  EXPECT_GT(dropped_some, 0);
}

TEST(Gst, BadOptionsNameTheKey) {
  TrainOptions o = gst_options(10, 0, 0.0);
  try {
    apply_gst_options(o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.key(), "gst_segments_per_step");
  }
  o = gst_options(10, 1, 1.0);
  EXPECT_THROW(apply_gst_options(o), Error);
  o = gst_options(10, 1, 0.0);
  o.gst_partition = "random";
  EXPECT_THROW(apply_gst_options(o), Error);
}

std::string run_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("graphcost_gst_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// Whole training runs on chain_collection(): 10-node segments, stale dropout 0.3, G = 2, S = 4,
// one thread, no validation, a checkpoint only at the end.
TrainOptions gst_training_options(int64_t per_step, int64_t iterations, int64_t log_every) {
  TrainOptions o = gst_options(10, per_step, 0.3);
  o.iterations = iterations;
  o.graphs_per_batch = 2;
  o.slate_size = 4;
  o.log_every = log_every;
  o.validate_every = 0;
  o.checkpoint_every = 0;
  o.threads = 1;
  return o;
}

TEST(Gst, TrainingIsSeededAndRecordedAndTheModelScoresBySegments) {
  auto train_set = chain_collection();
  TrainOptions o = gst_training_options(2, 6, 2);
  o.gst_partition = "metis";
  const std::string a = run_dir("a"), b = run_dir("b");
  train(o, *train_set, train_set.get(), a, false);
  train(o, *train_set, train_set.get(), b, false);
  EXPECT_EQ(losses(a).size(), 3u);
  EXPECT_EQ(losses(a), losses(b));
  const nlohmann::json config = nlohmann::json::parse(read_file(a + "/config.json"));
  EXPECT_EQ(config["gst_segment_nodes"], 10);
  EXPECT_EQ(config["gst_segments_per_step"], 2);
  EXPECT_EQ(config["gst_partition"], "metis");
  EXPECT_EQ(config["model"]["segment_nodes"], 10);
  model::Ranker m = model::load_model(a + "/model.pt");
  EXPECT_EQ(m->options().segment_nodes, 10);
  EXPECT_EQ(m->options().segment_partition, "metis");
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

TEST(Gst, ResumeKeepsTheHistoricalTableAndMatchesAnUninterruptedRun) {
  auto train_set = chain_collection();
  TrainOptions o = gst_training_options(1, 8, 1);
  const std::string whole = run_dir("whole"), parts = run_dir("parts");
  clear_stop_request();
  train(o, *train_set, nullptr, whole, false);
  o.iterations = 4;
  train(o, *train_set, nullptr, parts, false);
  o.iterations = 8;
  train(o, *train_set, nullptr, parts, true);
  // Stale scores come from the table: refilled with the newer weights after a resume they
  // would change the losses of iterations 5-8 and the final weights.
  ASSERT_EQ(losses(whole).size(), 8u);
  EXPECT_EQ(losses(whole), losses(parts));
  const auto a = model::load_model(whole + "/model.pt")->named_parameters();
  const auto b = model::load_model(parts + "/model.pt")->named_parameters();
  for (const auto& item : a) EXPECT_TRUE(torch::equal(item.value(), b[item.key()])) << item.key();
  std::filesystem::remove_all(whole);
  std::filesystem::remove_all(parts);
}

TEST(Gst, TableRoundTripsThroughAnArchiveAndRejectsAWrongSegmentCount) {
  auto collection = chain_collection();
  TrainOptions o = gst_options(10, 1, 0.0);
  model::Ranker m = make_model(o, *collection);
  GraphTensorCache cache(*collection, model::graph_feature_options(m->options()));
  SegmentTrainer trainer(*collection, o);
  trainer.forward(m, slate_of(*collection, cache, 0, {0, 3, 7}), 0);
  SegmentTrainer restored(*collection, o);
  through_archive(trainer, restored);
  for (int64_t config : {0, 3, 7, 5})
    for (int64_t k = 0; k < 4; ++k) {
      const double expected = trainer.historical(0, config, k);
      if (std::isnan(expected))
        EXPECT_TRUE(std::isnan(restored.historical(0, config, k))) << config << " " << k;
      else
        EXPECT_EQ(restored.historical(0, config, k), expected) << config << " " << k;
    }
  EXPECT_FALSE(std::isnan(restored.historical(0, 3, 2)));  // every segment of a slate's config
  // A table written for 20-node segments (2 per graph) does not fit 10-node ones (4).
  SegmentTrainer coarse(*collection, gst_options(20, 1, 0.0));
  coarse.forward(m, slate_of(*collection, cache, 0, {1}), 0);
  SegmentTrainer mismatched(*collection, o);
  try {
    through_archive(coarse, mismatched);
    FAIL() << "a table with the wrong segment count was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gst_table.scores_0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace graphcost::train
