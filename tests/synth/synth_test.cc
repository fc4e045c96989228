#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "core/error.h"
#include "synth/generator.h"
#include "synth/hlo.h"
#include "synth/random.h"

namespace graphcost::synth {
namespace {

SynthGraph small_layout(uint64_t seed, ProgramFamily family, LayoutSearch search) {
  LayoutGraphOptions options;
  options.nodes = 600;
  options.configurable_fraction = 0.05;
  options.configs = 300;
  options.family = family;
  options.search = search;
  return synth_layout_graph(options, seed);
}

SynthGraph small_tile(uint64_t seed) {
  TileKernelOptions options;
  options.nodes = 30;
  options.configs = 150;
  return synth_tile_kernel(options, seed);
}

int64_t rank_of(const data::Graph& graph, int64_t node) {
  int64_t rank = 0;
  for (int d = 0; d < 6; ++d) rank += graph.features(node)[21 + d] != 0.0f;
  return rank;
}

void expect_same_record(const SynthGraph& a, const SynthGraph& b) {
  EXPECT_EQ(a.record.graph.opcodes, b.record.graph.opcodes);
  EXPECT_EQ(a.record.graph.node_features, b.record.graph.node_features);
  EXPECT_EQ(a.record.graph.edges, b.record.graph.edges);
  EXPECT_EQ(a.record.graph.node_splits, b.record.graph.node_splits);
  EXPECT_EQ(a.record.graph.configurable_nodes, b.record.graph.configurable_nodes);
  EXPECT_EQ(a.record.configs.layout, b.record.configs.layout);
  EXPECT_EQ(a.record.configs.tile, b.record.configs.tile);
  EXPECT_EQ(a.runtimes.runtime_ns, b.runtimes.runtime_ns);
  EXPECT_EQ(a.runtimes.normalizer_ns, b.runtimes.normalizer_ns);
}

// Every edge [consumer, operand] points backwards: operands come before consumers.
void expect_topological(const data::Graph& graph) {
  ASSERT_GT(graph.num_edges(), 0);
  for (int64_t e = 0; e < graph.num_edges(); ++e) {
    const int32_t consumer = graph.edges[2 * e], operand = graph.edges[2 * e + 1];
    ASSERT_GE(operand, 0);
    ASSERT_LT(consumer, graph.num_nodes);
    ASSERT_LT(operand, consumer) << "edge " << e;
  }
  if (graph.configurable_nodes.empty()) {
    EXPECT_TRUE(graph.node_splits.empty());  // tile kernels, as in the release
    return;
  }
  ASSERT_GE(graph.node_splits.size(), 2u);
  EXPECT_EQ(graph.node_splits.front(), 0);
  EXPECT_EQ(graph.node_splits.back(), graph.num_nodes);
  EXPECT_TRUE(std::is_sorted(graph.node_splits.begin(), graph.node_splits.end()));
}

TEST(Random, IntegersAreInRangeAndPortable) {
  Random r(42);
  std::set<int64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = r.uniform_int(-3, 3);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 3);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 7u);
  // mt19937_64's 10000th output is fixed by the C++ standard; our streams rest on it.
  std::mt19937_64 engine(5489u);
  engine.discard(9999);
  EXPECT_EQ(engine(), 9981545732273789042ULL);
  EXPECT_NE(derive_seed(1, 2), derive_seed(1, 3));
  EXPECT_NE(derive_seed(1, 2), derive_seed(2, 2));
}

TEST(Synth, LayoutGraphIsDeterministicInSeed) {
  const SynthGraph a = small_layout(7, ProgramFamily::Convolutional, LayoutSearch::Random);
  const SynthGraph b = small_layout(7, ProgramFamily::Convolutional, LayoutSearch::Random);
  expect_same_record(a, b);
  const SynthGraph c = small_layout(8, ProgramFamily::Convolutional, LayoutSearch::Random);
  EXPECT_NE(a.runtimes.runtime_ns, c.runtimes.runtime_ns);
}

TEST(Synth, TileKernelIsDeterministicInSeed) {
  expect_same_record(small_tile(3), small_tile(3));
  EXPECT_NE(small_tile(3).record.configs.tile, small_tile(4).record.configs.tile);
}

TEST(Synth, LayoutGraphsAreTopologicalWithValidNodes) {
  for (ProgramFamily family : {ProgramFamily::Convolutional, ProgramFamily::Transformer}) {
    const SynthGraph g = small_layout(11, family, LayoutSearch::Default);
    const data::Graph& graph = g.record.graph;
    EXPECT_EQ(graph.num_nodes, 600);
    EXPECT_EQ(graph.feature_width, 140);
    expect_topological(graph);
    // One root per computation; the entry root (last computation) is the tuple.
    int64_t roots = 0;
    for (int64_t v = 0; v < graph.num_nodes; ++v) {
      const float* row = graph.features(v);
      roots += row[0] == 1.0f;
      float one_hot = 0;
      for (int c = 2; c <= 20; ++c) one_hot += row[c];
      ASSERT_EQ(one_hot, 1.0f) << "node " << v;
      if (row[2 + element_type::kTuple] == 0.0f) {
        double product = 1;
        for (int d = 0; d < 6; ++d) product *= row[21 + d] == 0.0f ? 1.0 : row[21 + d];
        ASSERT_FLOAT_EQ(row[28], static_cast<float>(product)) << "node " << v;
      }
      if (graph.opcodes[v] == opcode::kConvolution) {
        EXPECT_GT(row[37], 0.0f);   // window size
        EXPECT_EQ(row[107], 1.0f);  // feature_group_count
        EXPECT_EQ(row[134], 3.0f);  // default layout: last dim minor
      }
    }
    EXPECT_EQ(roots, static_cast<int64_t>(graph.node_splits.size()) - 1);
    EXPECT_EQ(graph.opcodes.back(), opcode::kTuple);
    EXPECT_EQ(graph.features(graph.num_nodes - 1)[0], 1.0f);
  }
}

TEST(Synth, ConfigurableNodesAreUniqueAndInRange) {
  for (ProgramFamily family : {ProgramFamily::Convolutional, ProgramFamily::Transformer}) {
    const SynthGraph g = small_layout(5, family, LayoutSearch::Random);
    const auto& ids = g.record.graph.configurable_nodes;
    ASSERT_EQ(static_cast<int64_t>(ids.size()), g.record.configs.nodes);
    EXPECT_EQ(ids.size(), 30u);  // 5% of 600
    for (size_t i = 0; i < ids.size(); ++i) {
      ASSERT_GE(ids[i], 0);
      ASSERT_LT(ids[i], g.record.graph.num_nodes);
      if (i > 0) {
        ASSERT_LT(ids[i - 1], ids[i]);
      }
      const int op = g.record.graph.opcodes[ids[i]];
      EXPECT_TRUE(op == opcode::kConvolution || op == opcode::kDot || op == opcode::kReshape ||
                  op == opcode::kTranspose)
          << op;
    }
  }
}

TEST(Synth, LayoutValuesArePermutationsOrDefault) {
  for (LayoutSearch search : {LayoutSearch::Default, LayoutSearch::Random, LayoutSearch::Tied}) {
    const SynthGraph g = small_layout(9, ProgramFamily::Transformer, search);
    const data::ConfigTable& configs = g.record.configs;
    const data::Graph& graph = g.record.graph;
    ASSERT_EQ(configs.width, 18);
    ASSERT_EQ(static_cast<int64_t>(configs.layout.size()), configs.count * configs.nodes * 18);
    int64_t permutations = 0;
    for (int64_t j = 0; j < configs.count; ++j) {
      for (int64_t k = 0; k < configs.nodes; ++k) {
        const int8_t* node = configs.layout.data() + (j * configs.nodes + k) * 18;
        for (int t = 0; t < 3; ++t) {
          const int8_t* v = node + 6 * t;
          if (std::all_of(v, v + 6, [](int8_t x) { return x == -1; })) continue;
          ++permutations;
          int rank = 0;
          while (rank < 6 && v[rank] >= 0) ++rank;
          for (int i = rank; i < 6; ++i) ASSERT_EQ(v[i], -1);
          std::vector<int8_t> sorted(v, v + rank);
          std::sort(sorted.begin(), sorted.end());
          for (int i = 0; i < rank; ++i) ASSERT_EQ(sorted[i], i);
          if (t == 0) {
            EXPECT_EQ(rank, rank_of(graph, graph.configurable_nodes[k]));
          }
        }
      }
    }
    EXPECT_GT(permutations, 0);
  }
}

TEST(Synth, DefaultSearchChangesFewNodes) {
  const SynthGraph g = small_layout(2, ProgramFamily::Convolutional, LayoutSearch::Default);
  const data::ConfigTable& configs = g.record.configs;
  double changed = 0;
  for (int64_t j = 0; j < configs.count; ++j) {
    for (int64_t k = 0; k < configs.nodes; ++k) {
      const int8_t* node = configs.layout.data() + (j * configs.nodes + k) * 18;
      changed += std::any_of(node, node + 18, [](int8_t x) { return x != -1; });
    }
  }
  // The first configuration is the compiler default; the others change 1 + geometric(0.5).
  EXPECT_LT(changed / configs.count, 3.0);
  const int8_t* first = configs.layout.data();
  EXPECT_TRUE(std::all_of(first, first + configs.nodes * 18, [](int8_t x) { return x == -1; }));
}

// Per configurable node, the index of its 18 values among the node's distinct values, per config.
std::vector<std::vector<int64_t>> node_value_ids(const data::ConfigTable& configs) {
  std::vector<std::vector<int64_t>> ids(configs.nodes, std::vector<int64_t>(configs.count));
  for (int64_t k = 0; k < configs.nodes; ++k) {
    std::vector<std::string> seen;
    for (int64_t j = 0; j < configs.count; ++j) {
      const int8_t* node = configs.layout.data() + (j * configs.nodes + k) * 18;
      const std::string value(reinterpret_cast<const char*>(node), 18);
      const auto it = std::find(seen.begin(), seen.end(), value);
      ids[k][j] = it - seen.begin();
      if (it == seen.end()) seen.push_back(value);
    }
  }
  return ids;
}

int64_t distinct(const std::vector<int64_t>& ids) {
  return *std::max_element(ids.begin(), ids.end()) + 1;
}

TEST(Synth, TiedSearchHasFewAssignmentsPerNodeInGroupsThatChangeTogether) {
  const SynthGraph tied = small_layout(4, ProgramFamily::Convolutional, LayoutSearch::Tied);
  const SynthGraph independent = small_layout(4, ProgramFamily::Convolutional, LayoutSearch::Random);
  // The same program: only the configurations differ.
  EXPECT_EQ(tied.record.graph.edges, independent.record.graph.edges);
  const auto ids = node_value_ids(tied.record.configs);
  const auto independent_ids = node_value_ids(independent.record.configs);
  int64_t most = 0, independent_most = 0;
  for (const auto& node : ids) most = std::max(most, distinct(node));
  for (const auto& node : independent_ids) independent_most = std::max(independent_most, distinct(node));
  EXPECT_LE(most, 9);  // at most 9 candidates per group
  EXPECT_GE(most, 2);
  EXPECT_GT(independent_most, 9);
  // Tied neighbours: node k + 1's value is a function of node k's and the other way round.
  auto tied_pair = [&](const std::vector<std::vector<int64_t>>& v, size_t k) {
    std::set<std::pair<int64_t, int64_t>> pairs;
    for (size_t j = 0; j < v[k].size(); ++j) pairs.insert({v[k][j], v[k + 1][j]});
    return distinct(v[k]) >= 2 && static_cast<int64_t>(pairs.size()) == distinct(v[k]) &&
           distinct(v[k]) == distinct(v[k + 1]);
  };
  int64_t tied_pairs = 0, independent_pairs = 0;
  for (size_t k = 0; k + 1 < ids.size(); ++k) tied_pairs += tied_pair(ids, k);
  for (size_t k = 0; k + 1 < ids.size(); ++k) independent_pairs += tied_pair(independent_ids, k);
  EXPECT_GE(tied_pairs, 3);
  EXPECT_EQ(independent_pairs, 0);
  // About half the candidates are 14x as likely as the rest: the most frequent value of a node
  // with several is well above uniform.
  for (const auto& node : ids) {
    if (distinct(node) < 4) continue;
    std::vector<int64_t> counts(distinct(node));
    for (int64_t id : node) ++counts[id];
    const double uniform_share = 1.0 / distinct(node);
    EXPECT_GT(*std::max_element(counts.begin(), counts.end()) / 300.0, 1.3 * uniform_share);
  }
  expect_same_record(tied, small_layout(4, ProgramFamily::Convolutional, LayoutSearch::Tied));
}

TEST(Synth, TileBoundsAreConsistent) {
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const SynthGraph g = small_tile(seed);
    const data::Graph& graph = g.record.graph;
    expect_topological(graph);
    EXPECT_GE(graph.num_nodes, 5);
    EXPECT_LE(graph.num_nodes, 45);
    EXPECT_TRUE(graph.configurable_nodes.empty());
    // The kernel's output shape: the entry computation's root (the last node).
    const float* root = graph.features(graph.num_nodes - 1);
    ASSERT_EQ(root[0], 1.0f);
    const int64_t rank = rank_of(graph, graph.num_nodes - 1);
    const data::ConfigTable& configs = g.record.configs;
    ASSERT_EQ(configs.width, 24);
    ASSERT_GT(configs.count, 1);
    for (int64_t j = 0; j < configs.count; ++j) {
      const float* c = configs.tile.data() + j * 24;
      for (int block = 0; block < 3; ++block) {
        double sum = 0, product = 1;
        for (int i = 0; i < 6; ++i) {
          sum += c[8 * block + i];
          if (c[8 * block + i] != 0) product *= c[8 * block + i];
        }
        ASSERT_FLOAT_EQ(c[8 * block + 6], static_cast<float>(sum));
        ASSERT_FLOAT_EQ(c[8 * block + 7], static_cast<float>(product));
      }
      for (int64_t d = 0; d < rank; ++d) {
        const double dim = root[21 + d], tile = c[8 + d], tiles = c[d];
        ASSERT_GE(tile, 1);
        // The tiles cover the dim, with less than one tile of padding.
        ASSERT_EQ(tiles, std::ceil(dim / tile)) << "seed " << seed << " dim " << d;
      }
    }
    // Runtimes: positive; the normalizer is the (noisy) runtime of one configuration.
    const auto& runtime = g.runtimes.runtime_ns;
    const int64_t normalizer = g.runtimes.normalizer_ns[0];
    EXPECT_NE(std::find(runtime.begin(), runtime.end(), normalizer), runtime.end());
    for (int64_t j = 0; j < configs.count; ++j) {
      ASSERT_GT(g.noiseless[j], 0);
      ASSERT_EQ(g.runtimes.normalizer_ns[j], normalizer);
      ASSERT_DOUBLE_EQ(configs.runtimes[j], static_cast<double>(runtime[j]) / normalizer);
    }
  }
}

TEST(Synth, NoiselessRuntimesArePositive) {
  const SynthGraph g = small_layout(4, ProgramFamily::Transformer, LayoutSearch::Random);
  ASSERT_EQ(static_cast<int64_t>(g.noiseless.size()), g.record.configs.count);
  for (double t : g.noiseless) EXPECT_GT(t, 0);
  for (int64_t t : g.runtimes.runtime_ns) EXPECT_GT(t, 0);
}

TEST(Synth, NoiseCeilingAtOnePercent) {
  double tile_sum = 0;
  for (uint64_t seed = 0; seed < 5; ++seed) tile_sum += small_tile(seed).noise_ceiling;
  EXPECT_GT(tile_sum / 5, 0.9);
  EXPECT_LT(tile_sum / 5, 1.0);
  for (ProgramFamily family : {ProgramFamily::Convolutional, ProgramFamily::Transformer}) {
    const SynthGraph g = small_layout(1, family, LayoutSearch::Random);
    EXPECT_GT(g.noise_ceiling, 0.9);
    EXPECT_LT(g.noise_ceiling, 1.0);
  }
}

TEST(Synth, NoiseCeilingIsOneWithoutNoise) {
  LayoutGraphOptions options;
  options.nodes = 400;
  options.configs = 100;
  options.noise = 0;
  const SynthGraph g = synth_layout_graph(options, 3);
  // Rounding to whole ns may only tie configurations that are within 1 ns of each other.
  EXPECT_GT(g.noise_ceiling, 0.999);
}

TEST(Synth, ShorthandMatchesOptions) {
  io::RuntimeColumns runtimes;
  const data::GraphRecord record = synth_layout_graph(500, 0.04, 50, 17, &runtimes);
  EXPECT_EQ(record.graph.num_nodes, 500);
  EXPECT_EQ(record.configs.count, 50);
  EXPECT_EQ(record.configs.nodes, 20);
  ASSERT_EQ(runtimes.runtime_ns.size(), 50u);
  EXPECT_TRUE(runtimes.normalizer_ns.empty());
}

TEST(Synth, BadOptionsAreErrors) {
  LayoutGraphOptions options;
  options.nodes = 10;
  EXPECT_THROW(synth_layout_graph(options, 1), Error);
  options.nodes = 500;
  options.configurable_fraction = 0;
  EXPECT_THROW(synth_layout_graph(options, 1), Error);
  options.configurable_fraction = 0.05;
  options.configs = 0;
  EXPECT_THROW(synth_layout_graph(options, 1), Error);
}

TEST(KendallTauPairs, HandComputedCases) {
  // Pairs of [1,2,3,4] vs [1,3,2,4]: 5 concordant, 1 discordant.
  EXPECT_NEAR(kendall_tau_b_pairs({1, 2, 3, 4}, {1, 3, 2, 4}), 4.0 / 6.0, 1e-12);
  // One tie in x: (C - D) / sqrt((3 - 1) * 3) = 2 / sqrt(6).
  EXPECT_NEAR(kendall_tau_b_pairs({1, 1, 2}, {1, 2, 3}), 2.0 / std::sqrt(6.0), 1e-12);
  EXPECT_NEAR(kendall_tau_b_pairs({1, 2, 3}, {3, 2, 1}), -1.0, 1e-12);
  EXPECT_TRUE(std::isnan(kendall_tau_b_pairs({1, 1}, {1, 2})));
}

}  // namespace
}  // namespace graphcost::synth
