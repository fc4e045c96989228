#include "xgb/features.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace graphcost::xgb {

namespace {

constexpr float kAbsentNode = -2;

int64_t graph_width(const FeatureOptions& o) { return o.num_opcodes + 1 + 2 * o.node_feature_width; }

int64_t config_part_width(const FeatureOptions& o) {
  if (o.kind == data::ConfigKind::Tile) return o.config_width;
  return o.config_width * (data::kLayoutValues + o.layout_nodes);
}

float sign_log(float x) { return std::copysign(std::log1p(std::fabs(x)), x); }

void append_config(const data::ConfigView& configs, int64_t j, const FeatureOptions& o,
                   std::vector<float>& row) {
  if (configs.kind == data::ConfigKind::Tile) {
    const float* c = configs.tile_config(j);
    for (int64_t k = 0; k < configs.width; ++k) row.push_back(sign_log(c[k]));
    return;
  }
  const int8_t* c = configs.layout_config(j);
  const int64_t w = configs.width, nodes = configs.nodes;
  std::vector<float> shares(w * data::kLayoutValues, 0.0f);
  for (int64_t n = 0; n < nodes; ++n) {
    for (int64_t k = 0; k < w; ++k) {
      const int value = std::clamp<int>(c[n * w + k], -1, 5);
      shares[k * data::kLayoutValues + (value + 1)] += 1.0f / static_cast<float>(nodes);
    }
  }
  row.insert(row.end(), shares.begin(), shares.end());
  for (int64_t n = 0; n < o.layout_nodes; ++n) {
    for (int64_t k = 0; k < w; ++k) row.push_back(n < nodes ? c[n * w + k] : kAbsentNode);
  }
}

}  // namespace

int64_t feature_width(const FeatureOptions& o) { return graph_width(o) + config_part_width(o); }

std::vector<float> graph_features(const data::Graph& graph, const FeatureOptions& o) {
  check_data(graph.feature_width == o.node_feature_width, graph.name, "node_feat",
             std::to_string(graph.feature_width) + " columns, the model expects " +
                 std::to_string(o.node_feature_width));
  std::vector<float> row(graph_width(o), 0.0f);
  std::vector<double> counts(o.num_opcodes, 0.0), sums(o.node_feature_width, 0.0);
  for (int64_t v = 0; v < graph.num_nodes; ++v) {
    counts[std::clamp<int64_t>(graph.opcodes[v], 0, o.num_opcodes - 1)] += 1;
    const float* f = graph.features(v);
    for (int64_t k = 0; k < o.node_feature_width; ++k) sums[k] += f[k];
  }
  for (int64_t b = 0; b < o.num_opcodes; ++b) row[b] = static_cast<float>(std::log1p(counts[b]));
  row[o.num_opcodes] = static_cast<float>(std::log1p(static_cast<double>(graph.num_nodes)));
  const double nodes = std::max<double>(1.0, static_cast<double>(graph.num_nodes));
  for (int64_t k = 0; k < o.node_feature_width; ++k) {
    row[o.num_opcodes + 1 + k] = static_cast<float>(sums[k]);
    row[o.num_opcodes + 1 + o.node_feature_width + k] = static_cast<float>(sums[k] / nodes);
  }
  return row;
}

std::vector<float> feature_rows(const data::Graph& graph, const data::ConfigView& configs,
                                const std::vector<int64_t>& indices, const FeatureOptions& o) {
  check_data(configs.kind == o.kind, graph.name, "configs",
             data::config_kind_name(configs.kind) + " configurations, the model expects " +
                 data::config_kind_name(o.kind));
  check_data(configs.width == o.config_width, graph.name, "config_feat",
             std::to_string(configs.width) + " columns, the model expects " +
                 std::to_string(o.config_width));
  const std::vector<float> graph_part = graph_features(graph, o);
  std::vector<float> rows;
  rows.reserve(indices.size() * feature_width(o));
  for (int64_t j : indices) {
    rows.insert(rows.end(), graph_part.begin(), graph_part.end());
    append_config(configs, j, o, rows);
  }
  return rows;
}

}  // namespace graphcost::xgb
