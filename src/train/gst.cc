#include "train/gst.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/random.h"
#include "train/sampler.h"

namespace graphcost::train {

namespace {

const char* kGstWhere = "train options";
// The segment choices and dropout draws come from their own stream family.
constexpr uint64_t kGstStream = 0x6773745f73656dULL;

std::vector<float>& table_row(std::unordered_map<int64_t, std::vector<float>>& table,
                              int64_t config, size_t segments) {
  auto it = table.find(config);
  if (it == table.end())
    it = table.emplace(config, std::vector<float>(segments, std::nanf(""))).first;
  return it->second;
}

}  // namespace

void apply_gst_options(TrainOptions& options) {
  check_gst_options(options);
  options.model.segment_nodes = options.gst_segment_nodes;
  options.model.segment_partition = options.gst_partition;
}

SegmentTrainer::SegmentTrainer(const data::Collection& collection, const TrainOptions& options)
    : collection_(collection),
      options_(options),
      segments_(collection.size()),
      table_(collection.size()) {
  apply_gst_options(options_);
  check_data(options_.gst_segment_nodes > 0, kGstWhere, "gst_segment_nodes",
             "segment training needs a positive segment size");
}

const model::SegmentedGraph& SegmentTrainer::segments(int64_t graph) {
  check_data(graph >= 0 && graph < collection_.size(), "segment training", "graph_index",
             "graph " + std::to_string(graph) + " is not in the collection");
  if (!segments_[graph]) {
    segments_[graph] = std::make_unique<model::SegmentedGraph>(model::make_segmented_graph(
        collection_.graph(graph), options_.gst_segment_nodes,
        data::parse_segment_partition(options_.gst_partition),
        model::graph_feature_options(options_.model)));
  }
  return *segments_[graph];
}

double SegmentTrainer::historical(int64_t graph, int64_t config, int64_t segment) const {
  if (graph < 0 || graph >= static_cast<int64_t>(table_.size())) return std::nan("");
  const auto it = table_[graph].find(config);
  if (it == table_[graph].end() || segment < 0 ||
      segment >= static_cast<int64_t>(it->second.size()))
    return std::nan("");
  return it->second[segment];
}

torch::Tensor SegmentTrainer::forward(model::Ranker& model, const model::Slate& slate,
                                      uint64_t stream) {
  const model::SegmentedGraph& graph = segments(slate.graph_index);
  const size_t count = graph.segments.size();
  const int64_t s = slate.config_features.size(0);
  check_data(static_cast<int64_t>(slate.config_indices.size()) == s, "segment training",
             "config_indices", "one index per configuration of the slate expected");
  if (count == 0) return model->forward(slate);  // an empty graph: nothing to cut

  Random random = random_stream(options_.seed ^ kGstStream, stream);
  std::vector<int64_t> fresh = sample_without_replacement(
      random, static_cast<int64_t>(count), options_.gst_segments_per_step);
  std::sort(fresh.begin(), fresh.end());
  std::vector<float*> rows(s);
  for (int64_t i = 0; i < s; ++i)
    rows[i] = table_row(table_[slate.graph_index], slate.config_indices[i], count).data();

  torch::Tensor scores = torch::zeros({s});
  std::vector<bool> is_fresh(count, false);
  for (int64_t k : fresh) {
    is_fresh[k] = true;
    const torch::Tensor part = model::forward_segment(model, graph.segments[k], slate);
    const torch::Tensor values = part.detach().to(torch::kFloat).contiguous();
    for (int64_t i = 0; i < s; ++i) rows[i][k] = values.data_ptr<float>()[i];
    scores = scores + part;
  }

  // Stale segments: kept ones scaled by 1 / (1 - p) so the expected stale sum is unchanged.
  const double p = options_.gst_stale_dropout;
  const double keep_scale = 1.0 / (1.0 - p);
  std::vector<double> stale(s, 0.0);
  for (size_t k = 0; k < count; ++k) {
    if (is_fresh[k]) continue;
    if (p > 0 && random.uniform() < p) continue;
    std::vector<int64_t> missing;
    for (int64_t i = 0; i < s; ++i)
      if (std::isnan(rows[i][k])) missing.push_back(i);
    if (!missing.empty()) {
      // First visit: computed without gradients, so memory stays bounded by one segment.
      torch::NoGradGuard no_grad;
      model::Slate part = slate;
      part.config_features = slate.config_features.index_select(0, torch::tensor(missing));
      part.config_indices.clear();
      for (int64_t i : missing) part.config_indices.push_back(slate.config_indices[i]);
      const torch::Tensor values = model::forward_segment(model, graph.segments[k], part)
                                       .to(torch::kFloat)
                                       .contiguous();
      for (size_t m = 0; m < missing.size(); ++m)
        rows[missing[m]][k] = values.data_ptr<float>()[m];
      filled_ += static_cast<int64_t>(missing.size());
    }
    for (int64_t i = 0; i < s; ++i) stale[i] += keep_scale * rows[i][k];
  }
  last_fresh_ = std::move(fresh);
  return scores + torch::tensor(stale, torch::kDouble).to(torch::kFloat);
}

void SegmentTrainer::save(torch::serialize::OutputArchive& archive) const {
  // Per graph with entries: its configuration indices [n] and their segment scores [n, segments].
  torch::serialize::OutputArchive table;
  for (size_t g = 0; g < table_.size(); ++g) {
    if (table_[g].empty()) continue;
    const int64_t n = static_cast<int64_t>(table_[g].size());
    const int64_t k = static_cast<int64_t>(table_[g].begin()->second.size());
    torch::Tensor configs = torch::empty({n}, torch::kLong);
    torch::Tensor scores = torch::empty({n, k}, torch::kFloat);
    int64_t row = 0;
    for (const auto& [config, values] : table_[g]) {
      configs[row] = config;
      std::copy(values.begin(), values.end(), scores.data_ptr<float>() + row * k);
      ++row;
    }
    table.write("configs_" + std::to_string(g), configs, /*is_buffer=*/true);
    table.write("scores_" + std::to_string(g), scores, /*is_buffer=*/true);
  }
  archive.write("gst_table", table);
  archive.write("gst_filled", c10::IValue(filled_));
}

void SegmentTrainer::load(torch::serialize::InputArchive& archive, const std::string& where) {
  torch::serialize::InputArchive table;
  if (!archive.try_read("gst_table", table)) return;  // checkpoints from before the table was kept
  for (size_t g = 0; g < table_.size(); ++g) {
    torch::Tensor configs, scores;
    const std::string key = "gst_table.scores_" + std::to_string(g);
    if (!table.try_read("configs_" + std::to_string(g), configs, /*is_buffer=*/true)) continue;
    check_data(table.try_read("scores_" + std::to_string(g), scores, /*is_buffer=*/true), where,
               key, "missing");
    const int64_t segment_count =
        static_cast<int64_t>(segments(static_cast<int64_t>(g)).segments.size());
    check_data(configs.dim() == 1 && configs.scalar_type() == torch::kLong && scores.dim() == 2 &&
                   scores.scalar_type() == torch::kFloat && scores.size(0) == configs.size(0) &&
                   scores.size(1) == segment_count,
               where, key,
               "expected [configurations, " + std::to_string(segment_count) +
                   " segments] float32 scores for int64 configuration indices");
    scores = scores.contiguous();
    table_[g].clear();
    for (int64_t row = 0; row < configs.size(0); ++row) {
      const float* values = scores.data_ptr<float>() + row * segment_count;
      table_[g][configs[row].item<int64_t>()] = std::vector<float>(values, values + segment_count);
    }
  }
  c10::IValue filled;
  if (archive.try_read("gst_filled", filled) && filled.isInt()) filled_ = filled.toInt();
}

}  // namespace graphcost::train
