#include "tune/transfer.h"

#include <cmath>

#include "core/error.h"
#include "tune/surrogate.h"

namespace graphcost::tune {

std::vector<PriorSpace> load_prior_spaces(const std::string& path, const std::string& split,
                                          const std::string& exclude_graph,
                                          const data::DeviceTable& table) {
  return load_prior_spaces(open_tune_source(path, split), path, exclude_graph, table);
}

std::vector<PriorSpace> load_prior_spaces(const TuneRecords& records, const std::string& path,
                                          const std::string& exclude_graph,
                                          const data::DeviceTable& table) {
  std::vector<PriorSpace> out;
  for (int64_t g = 0; g < records.collection->size(); ++g) {
    const std::string& name = records.collection->graph(g).name;
    if (name == exclude_graph) continue;
    PriorSpace prior;
    prior.space = make_search_space(name, records.collection->configs(g), records.layout);
    check_data(prior.space.has_runtimes(), path, name, "no recorded times to learn a prior from");
    if (const data::DeviceProperties* d = table.find(name)) {
      prior.device_known = true;
      prior.device = *d;
    }
    out.push_back(std::move(prior));
  }
  check_data(!out.empty(), path, "--pretrained",
             "no graph other than the target '" + exclude_graph + "' to learn a prior from");
  return out;
}

TransferPrior fit_transfer_prior(const std::vector<PriorSpace>& sources, const SearchSpace& target,
                                 const data::DeviceProperties* target_device,
                                 const xgb::TreeOptions& trees) {
  const int64_t params = target.parameter_count();
  const int64_t width = params + data::kDeviceFeatureCount;
  auto append_rows = [&](const SearchSpace& space, const std::vector<float>& device,
                         std::vector<float>* rows, const std::vector<uint8_t>* keep) {
    const std::vector<float> base = parameter_rows(space, target);
    for (int64_t j = 0; j < space.count; ++j) {
      if (keep && !(*keep)[j]) continue;
      rows->insert(rows->end(), base.begin() + j * params, base.begin() + (j + 1) * params);
      rows->insert(rows->end(), device.begin(), device.end());
    }
  };
  std::vector<float> rows, labels, all_rows, failed;
  bool any_failed = false;
  for (const PriorSpace& source : sources) {
    const SearchSpace& s = source.space;
    const std::vector<float> device = data::device_features(source.device_known ? &source.device : nullptr);
    std::vector<uint8_t> ok(s.count, 0);
    double sum = 0, sum2 = 0;
    int64_t n = 0;
    for (int64_t j = 0; j < s.count; ++j) {
      if (s.failed[j] || !(s.runtimes[j] > 0)) continue;
      ok[j] = 1;
      const double y = std::log(s.runtimes[j]);
      sum += y;
      sum2 += y * y;
      ++n;
    }
    if (n < 2) continue;
    const double mean = sum / n;
    const double sd = std::max(1e-9, std::sqrt(std::max(0.0, sum2 / n - mean * mean)));
    append_rows(s, device, &rows, &ok);
    for (int64_t j = 0; j < s.count; ++j) {
      if (ok[j]) labels.push_back(static_cast<float>((std::log(s.runtimes[j]) - mean) / sd));
    }
    append_rows(s, device, &all_rows, nullptr);
    for (int64_t j = 0; j < s.count; ++j) {
      failed.push_back(s.failed[j] ? 1.0f : 0.0f);
      any_failed = any_failed || s.failed[j];
    }
  }
  check_data(!labels.empty(), "tune", "--pretrained", "no successful source measurements");
  std::vector<float> target_rows;
  append_rows(target, data::device_features(target_device), &target_rows, nullptr);
  TransferPrior prior;
  prior.cost = xgb::GradientBoostedTrees::train(rows, width, labels, trees).predict(target_rows);
  prior.failure_probability.assign(target.count, 0.0);
  if (any_failed) {
    xgb::TreeOptions classifier = trees;
    classifier.objective = "binary:logistic";
    prior.failure_probability =
        xgb::GradientBoostedTrees::train(all_rows, width, failed, classifier).predict(target_rows);
  }
  return prior;
}

}  // namespace graphcost::tune
