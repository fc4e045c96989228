#include "data/input_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace graphcost::data {
namespace {

// A 140-column row with the given shape dims (columns 21-26) and minor_to_major (134-139).
std::vector<float> row_with(const std::vector<float>& shape, const std::vector<float>& layout) {
  std::vector<float> row(kTpuGraphsFeatureWidth, 0.0f);
  row[1] = 32;  // unrelated columns must not matter
  for (size_t k = 0; k < shape.size(); ++k) row[kShapeDimsColumn + k] = shape[k];
  for (size_t k = 0; k < layout.size(); ++k) row[kMinorToMajorColumn + k] = layout[k];
  return row;
}

using Six = std::array<float, 6>;

TEST(ShapeRank, OnePastTheLastNonZeroDim) {
  const float none[] = {0, 0, 0, 0, 0, 0}, vector[] = {5, 0, 0, 0, 0, 0},
              inner_zero[] = {0, 7, 0, 0, 0, 0}, full[] = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(shape_rank(none), 0);
  EXPECT_EQ(shape_rank(vector), 1);
  EXPECT_EQ(shape_rank(inner_zero), 2);
  EXPECT_EQ(shape_rank(full), 6);
}

TEST(MinusOnePadding, HandMadeRows) {
  // scalar: no dims at all
  EXPECT_EQ(minus_one_padded_layout(row_with({}, {}).data()), (Six{-1, -1, -1, -1, -1, -1}));
  // vector: dim 0 is a real 0, the rest absent
  EXPECT_EQ(minus_one_padded_layout(row_with({5}, {0}).data()), (Six{0, -1, -1, -1, -1, -1}));
  // rank 4, default layout
  EXPECT_EQ(minus_one_padded_layout(row_with({2, 3, 4, 5}, {3, 2, 1, 0}).data()),
            (Six{3, 2, 1, 0, -1, -1}));
  // rank 2 transposed: the 0 in front is a dimension, not padding
  EXPECT_EQ(minus_one_padded_layout(row_with({7, 9}, {0, 1}).data()), (Six{0, 1, -1, -1, -1, -1}));
  // a zero-sized dim inside the shape still counts (rank from the last non-zero dim)
  EXPECT_EQ(minus_one_padded_layout(row_with({0, 7}, {1, 0}).data()), (Six{1, 0, -1, -1, -1, -1}));
  // a zero-sized last dim: the layout's largest entry still gives rank 3
  EXPECT_EQ(minus_one_padded_layout(row_with({4, 4, 0}, {0, 2, 1}).data()),
            (Six{0, 2, 1, -1, -1, -1}));
  // rank 6 has no padding
  EXPECT_EQ(minus_one_padded_layout(row_with({1, 2, 3, 4, 5, 6}, {5, 4, 3, 2, 1, 0}).data()),
            (Six{5, 4, 3, 2, 1, 0}));
}

TEST(MinusOnePadding, RoundTripsEveryPermutationLayout) {
  std::mt19937 rng(4);
  for (int rank = 0; rank <= 6; ++rank) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> shape, layout;
      for (int k = 0; k < rank; ++k) {
        shape.push_back(static_cast<float>(1 + rng() % 300));
        layout.push_back(static_cast<float>(k));
      }
      std::shuffle(layout.begin(), layout.end(), rng);
      const std::vector<float> row = row_with(shape, layout);
      const Six padded = minus_one_padded_layout(row.data());
      for (int k = 0; k < 6; ++k) EXPECT_EQ(padded[k] == -1, k >= rank) << rank;
      const Six back = unpadded_layout(padded);
      for (int k = 0; k < 6; ++k) EXPECT_EQ(back[k], row[kMinorToMajorColumn + k]);
    }
  }
}

TEST(ShapeMod128, RemainderThenQuotient) {
  const std::vector<float> row = row_with({300, 128, 5, 0, 1000000}, {});
  const std::array<float, 12> expected = {44, 0, 5, 0, 64, 0, 2, 1, 0, 0, 7812, 0};
  EXPECT_EQ(shape_mod128(row.data()), expected);
}

Graph graph_from_edges(int64_t n, const std::vector<int32_t>& edges) {
  Graph g;
  g.num_nodes = n;
  g.feature_width = 1;
  g.opcodes.assign(n, 1);
  g.node_features.assign(n, 1.0f);
  g.edges = edges;
  g.build_adjacency();
  return g;
}

TEST(RandomWalk, PathOfFourNodesByHand) {
  // 0 <- 1 <- 2 <- 3 (each consumes the previous): undirected path 0-1-2-3, degrees 1, 2, 2, 1.
  // Returns after 2 steps: end 1/2, middle 1/2 + 1/4; after 4: end 3/8, middle 11/16; odd: 0.
  const Graph g = graph_from_edges(4, {1, 0, 2, 1, 3, 2});
  const std::vector<float> expected = {0, 0.5f,  0, 0.375f,  0, 0.75f, 0, 0.6875f,
                                       0, 0.75f, 0, 0.6875f, 0, 0.5f,  0, 0.375f};
  EXPECT_EQ(random_walk_diagonals(g, 4), expected);
}

TEST(RandomWalk, DuplicatesDirectionAndIsolatedNodes) {
  // The duplicate edge and the edge direction do not matter; node 3 is isolated.
  const Graph g = graph_from_edges(4, {1, 0, 1, 0, 2, 1, 0, 2});
  // a triangle: P^2 diagonal = 1/2, P^3 diagonal = 1/4
  const std::vector<float> expected = {0, 0.5f, 0.25f, 0, 0.5f, 0.25f, 0, 0.5f, 0.25f, 0, 0, 0};
  EXPECT_EQ(random_walk_diagonals(g, 3), expected);
  EXPECT_TRUE(random_walk_diagonals(g, 0).empty());
}

TEST(RandomWalk, MatchesDenseMatrixPowers) {
  std::mt19937 rng(7);
  const int64_t n = 30, steps = 6;
  std::vector<int32_t> edges;
  for (int e = 0; e < 50; ++e) {
    const int32_t a = 1 + static_cast<int32_t>(rng() % (n - 2)),
                  b = static_cast<int32_t>(rng() % a);
    edges.push_back(a);
    edges.push_back(b);
  }
  const Graph g = graph_from_edges(n, edges);
  std::vector<double> a(n * n, 0.0);
  for (size_t e = 0; e < edges.size(); e += 2) {
    a[edges[e] * n + edges[e + 1]] = 1;
    a[edges[e + 1] * n + edges[e]] = 1;
  }
  std::vector<double> p(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double degree = 0;
    for (int64_t j = 0; j < n; ++j) degree += a[i * n + j];
    for (int64_t j = 0; j < n; ++j) p[i * n + j] = degree > 0 ? a[i * n + j] / degree : 0;
  }
  std::vector<double> power = p;
  const std::vector<float> walks = random_walk_diagonals(g, steps);
  for (int64_t k = 1; k <= steps; ++k) {
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(walks[i * steps + k - 1], power[i * n + i], 1e-6);
    std::vector<double> next(n * n, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t m = 0; m < n; ++m)
        for (int64_t j = 0; j < n; ++j) next[i * n + j] += power[i * n + m] * p[m * n + j];
    power = next;
  }
}

TEST(VirtualNode, ConsumesEverySink) {
  // 1 and 2 consume 0; 3 is isolated: sinks are 1, 2 and 3.
  Graph g = graph_from_edges(4, {1, 0, 2, 0});
  g.configurable_nodes = {1};
  const Graph v = with_virtual_output_node(g, 99);
  ASSERT_EQ(v.num_nodes, 5);
  EXPECT_EQ(v.opcodes.back(), 99);
  EXPECT_EQ(v.node_features.size(), 5u);
  EXPECT_EQ(v.node_features.back(), 0.0f);
  EXPECT_EQ(v.configurable_nodes, std::vector<int32_t>{1});
  const std::vector<int32_t> operands(v.operands.indices.begin() + v.operands.offsets[4],
                                      v.operands.indices.begin() + v.operands.offsets[5]);
  EXPECT_EQ(operands, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(v.users.degree(0), 2);
  for (int32_t sink : {1, 2, 3}) {
    ASSERT_EQ(v.users.degree(sink), 1);
    EXPECT_EQ(v.users.indices[v.users.offsets[sink]], 4);
  }
  EXPECT_EQ(v.users.degree(4), 0);
}

}  // namespace
}  // namespace graphcost::data
