#include "train/sampler.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "test_collection.h"

namespace graphcost::train {
namespace {

using testing::make_test_collection;

// What identifies a batch: (graph, configuration indices) per slate.
std::vector<std::pair<int64_t, std::vector<int64_t>>> contents(const Batch& batch) {
  std::vector<std::pair<int64_t, std::vector<int64_t>>> out;
  for (const auto& slate : batch.slates) out.emplace_back(slate.graph_index, slate.config_indices);
  return out;
}

TEST(Random, BelowIsUniform) {
  Random random(1);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) ++counts[random.below(7)];
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);  // about 4 standard deviations
}

TEST(Random, SampleWithoutReplacementIsDistinctAndUniform) {
  Random random(2);
  std::vector<int> counts(10, 0);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<int64_t> pick = sample_without_replacement(random, 10, 3);
    ASSERT_EQ(pick.size(), 3u);
    ASSERT_EQ(std::set<int64_t>(pick.begin(), pick.end()).size(), 3u);
    for (int64_t p : pick) ++counts.at(p);
  }
  for (int c : counts) EXPECT_NEAR(c, 6000, 300);  // each index in 3/10 of the draws
  EXPECT_EQ(sample_without_replacement(random, 3, 5), (std::vector<int64_t>{0, 1, 2}));
}

TEST(Sampler, SlatesHoldDistinctConfigurationsOfTheirGraph) {
  auto collection = make_test_collection(data::ConfigKind::Layout, 4, 6, 7);
  GraphTensorCache cache(*collection);
  SamplerOptions options;
  options.graphs_per_batch = 3;
  options.slate_size = 8;  // graphs 0 and 1 have 6 and 7 configurations: all of them
  Sampler sampler(*collection, cache, options);
  for (int k = 0; k < 30; ++k) {
    Batch batch = sampler.next();
    EXPECT_EQ(batch.index, k);
    ASSERT_EQ(batch.slates.size(), 3u);
    for (const auto& slate : batch.slates) {
      const data::ConfigView configs = collection->configs(slate.graph_index);
      const auto& idx = slate.config_indices;
      EXPECT_EQ(static_cast<int64_t>(idx.size()), std::min<int64_t>(8, configs.count));
      EXPECT_EQ(std::set<int64_t>(idx.begin(), idx.end()).size(), idx.size());
      EXPECT_EQ(slate.graph, &cache.get(slate.graph_index));  // built once, shared
      ASSERT_EQ(slate.runtimes.size(0), static_cast<int64_t>(idx.size()));
      for (size_t i = 0; i < idx.size(); ++i) {
        EXPECT_EQ(slate.runtimes[i].item<double>(), configs.runtimes[idx[i]]);
      }
    }
  }
  EXPECT_EQ(sampler.next_index(), 30);
  EXPECT_GE(sampler.wait_seconds(), 0.0);
}

TEST(Sampler, SameSeedSameBatchesWhateverTheThreadsOrStart) {
  auto collection = make_test_collection(data::ConfigKind::Tile, 5, 20, 3);
  GraphTensorCache cache(*collection);
  SamplerOptions options;
  options.seed = 42;
  std::vector<Batch> first;
  {
    torch::set_num_threads(1);
    Sampler sampler(*collection, cache, options);
    for (int k = 0; k < 12; ++k) first.push_back(sampler.next());
  }
  {
    torch::set_num_threads(2);
    options.prefetch = 1;
    Sampler sampler(*collection, cache, options);
    for (int k = 0; k < 12; ++k) EXPECT_EQ(contents(sampler.next()), contents(first[k])) << k;
  }
  {
    Sampler resumed(*collection, cache, options, 7);  // a run resuming at batch 7
    for (int k = 7; k < 12; ++k) EXPECT_EQ(contents(resumed.next()), contents(first[k])) << k;
    EXPECT_EQ(contents(resumed.make_batch(3)), contents(first[3]));
  }
  options.seed = 43;
  Sampler other(*collection, cache, options);
  int same = 0;
  for (int k = 0; k < 12; ++k) same += contents(other.next()) == contents(first[k]) ? 1 : 0;
  EXPECT_LT(same, 2);
}

TEST(Sampler, GraphsAreDrawnUniformly) {
  auto collection = make_test_collection(data::ConfigKind::Tile, 4, 5, 9);
  GraphTensorCache cache(*collection);
  SamplerOptions options;
  options.graphs_per_batch = 10;
  Sampler sampler(*collection, cache, options);
  std::vector<int> counts(4, 0);
  for (int k = 0; k < 400; ++k) {
    for (const auto& slate : sampler.next().slates) ++counts[slate.graph_index];
  }
  for (int c : counts) EXPECT_NEAR(c, 1000, 130);  // 4000 draws, sd about 27
}

TEST(Sampler, RejectsCollectionsItCannotTrainOn) {
  auto collection = make_test_collection(data::ConfigKind::Tile, 2, 1, 9);  // 1 and 2 configs
  GraphTensorCache cache(*collection);
  SamplerOptions options;
  {
    Sampler sampler(*collection, cache, options);  // only graph 1 is eligible
    for (const auto& slate : sampler.next().slates) EXPECT_EQ(slate.graph_index, 1);
  }
  options.slate_size = 1;
  EXPECT_THROW(Sampler(*collection, cache, options), Error);
  auto single = make_test_collection(data::ConfigKind::Tile, 1, 1, 9);
  GraphTensorCache single_cache(*single);
  EXPECT_THROW(Sampler(*single, single_cache, SamplerOptions{}), Error);
}

}  // namespace
}  // namespace graphcost::train
