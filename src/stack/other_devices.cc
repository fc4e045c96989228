#include "stack/other_devices.h"

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "eval/ensemble.h"

namespace graphcost::stack {

OtherDevices OtherDevices::build(const data::Collection& references) {
  OtherDevices out;
  out.width_ = references.config_width();
  check_data(references.id().kind == data::ConfigKind::Tile, "--member-other-devices", "",
             "needs graph-level (tile) configurations, as Kernel Tuner data has; " +
                 references.id().str() + " has per-node ones");
  const size_t count = static_cast<size_t>(references.size());
  for (size_t r = 0; r < count; ++r) out.references_.push_back(references.graph(r).name);
  for (size_t r = 0; r < count; ++r) {
    const data::ConfigView configs = references.configs(r);
    if (!configs.has_runtimes()) continue;
    std::vector<double> logs;
    for (int64_t j = 0; j < configs.count; ++j) logs.push_back(std::log(configs.runtimes[j]));
    const std::vector<double> z = eval::standardise(logs);
    for (int64_t j = 0; j < configs.count; ++j) {
      const float* row = configs.tile_config(j);
      const auto entry = out.times_.try_emplace(std::vector<float>(row, row + out.width_),
                                                std::vector<double>(count, std::nan(""))).first;
      entry->second[r] = z[j];
    }
  }
  check_data(!out.times_.empty(), "--member-other-devices", "",
             "the reference graphs have no measured runtimes");
  return out;
}

std::vector<double> OtherDevices::score(const std::string& graph_name,
                                        const data::ConfigView& configs,
                                        const std::vector<int64_t>& listed) const {
  check_data(configs.kind == data::ConfigKind::Tile && configs.width == width_, graph_name,
             "config_feat",
             std::to_string(configs.width) + " columns per configuration (the other devices' " +
                 "configurations have " + std::to_string(width_) + ")");
  std::vector<int64_t> indices = listed;
  if (indices.empty()) {
    indices.resize(static_cast<size_t>(configs.count));
    std::iota(indices.begin(), indices.end(), 0);
  }
  std::vector<double> out;
  for (int64_t j : indices) {
    const float* row = configs.tile_config(j);
    const auto found = times_.find(std::vector<float>(row, row + width_));
    double sum = 0;
    int counted = 0;
    if (found != times_.end()) {
      for (size_t r = 0; r < references_.size(); ++r) {
        if (references_[r] == graph_name || std::isnan(found->second[r])) continue;
        sum += found->second[r];
        ++counted;
      }
    }
    out.push_back(counted > 0 ? sum / counted : 0.0);
  }
  return out;
}

nlohmann::json OtherDevices::to_json() const {
  nlohmann::json rows = nlohmann::json::array(), times = nlohmann::json::array();
  for (const auto& [row, values] : times_) {
    rows.push_back(row);
    nlohmann::json per_reference = nlohmann::json::array();
    for (double v : values) per_reference.push_back(std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v));
    times.push_back(per_reference);
  }
  return {{"width", width_}, {"references", references_}, {"rows", rows}, {"times", times}};
}

OtherDevices OtherDevices::from_json(const nlohmann::json& j, const std::string& where) {
  OtherDevices out;
  try {
    out.width_ = j.at("width").get<int64_t>();
    out.references_ = j.at("references").get<std::vector<std::string>>();
    const nlohmann::json& rows = j.at("rows");
    const nlohmann::json& times = j.at("times");
    check_data(rows.is_array() && times.is_array() && rows.size() == times.size(), where, "times",
               "expected one list of times per row");
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<float> row = rows[i].get<std::vector<float>>();
      check_data(static_cast<int64_t>(row.size()) == out.width_, where, "rows",
                 "a row of " + std::to_string(row.size()) + " values, expected " +
                     std::to_string(out.width_));
      check_data(times[i].is_array() && times[i].size() == out.references_.size(), where, "times",
                 "expected one value per reference");
      std::vector<double> values;
      for (const auto& v : times[i]) values.push_back(v.is_null() ? std::nan("") : v.get<double>());
      out.times_.emplace(std::move(row), std::move(values));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(where, "", std::string("not an other-devices table: ") + e.what());
  }
  return out;
}

}  // namespace graphcost::stack
