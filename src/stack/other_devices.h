// A stack member that is no model: the ranking of a graph's configurations by other devices'
// measured times, for Kernel Tuner data (docs/kernel-tuner.md), where a graph is one kernel on
// one device and the devices of a folder share one configuration layout, so equal configuration
// rows are the same kernel configuration. It is the "other device" baseline of docs/xgboost.md
// (bench/kt_other_device.py) made one score: each reference device's log times standardised
// within that device, averaged over the references that measured the configuration.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/collection.h"

namespace graphcost::stack {

class OtherDevices {
 public:
  // The reference devices: every graph of `references` (the members' training graphs) with
  // runtimes. Graph-level (tile) configurations only; anything else is an Error.
  static OtherDevices build(const data::Collection& references);
  // A score per listed configuration of graph `graph_name` (all when indices is empty): the
  // mean of the references' standardised log times, leaving out a reference of the same name (a
  // device is never its own other device); 0 (every reference's mean) for a configuration no
  // other reference measured. Configurations of another width are an Error naming the graph.
  std::vector<double> score(const std::string& graph_name, const data::ConfigView& configs,
                            const std::vector<int64_t>& indices) const;

  // {"width", "references": [names], "rows": [[values]], "times": [[standardised log time or
  // null per reference]]}.
  nlohmann::json to_json() const;
  static OtherDevices from_json(const nlohmann::json& j, const std::string& where);

  const std::vector<std::string>& references() const { return references_; }

 private:
  int64_t width_ = 0;
  std::vector<std::string> references_;
  // Configuration row -> per reference its standardised log time (NaN: not measured there).
  std::map<std::vector<float>, std::vector<double>> times_;
};

}  // namespace graphcost::stack
