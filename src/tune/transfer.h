// Transfer between devices: the recorded spaces of the same kernel on other devices, described
// by their properties (data/device_table.h), train a prior for the target device: a predicted
// cost and a failure probability per target configuration, which the search starts from and
// learns away from as its own measurements come in.
#pragma once

#include <string>
#include <vector>

#include "data/device_table.h"
#include "tune/search_space.h"
#include "xgb/trees.h"

namespace graphcost::tune {

struct PriorSpace {
  SearchSpace space;
  bool device_known = false;
  data::DeviceProperties device;  // meaningful when device_known
};

// Every graph of path (anything open_tune_records reads) except the one named `exclude_graph`
// (the target, so that it is never its own prior), each with its device looked up in table.
// No graph left, or one without recorded times, is an Error naming path.
std::vector<PriorSpace> load_prior_spaces(const std::string& path, const std::string& split,
                                          const std::string& exclude_graph,
                                          const data::DeviceTable& table);
// The same from records already open (read from `path`, named in errors).
std::vector<PriorSpace> load_prior_spaces(const TuneRecords& records, const std::string& path,
                                          const std::string& exclude_graph,
                                          const data::DeviceTable& table);

struct TransferPrior {
  std::vector<double> cost;                 // per target configuration, lower = faster
  std::vector<double> failure_probability;  // per target configuration; 0 when no source failed
};

// Trains one regressor on every source's successful configurations (rows: parameter_rows in the
// target's parameters, then device_features; label: the log time standardised within its
// device, since devices differ in speed but the ranking is what transfers) and, where some
// source configuration failed, one classifier of failure; then predicts for the target's
// configurations with the target's device features (target_device may be nullptr: unknown).
TransferPrior fit_transfer_prior(const std::vector<PriorSpace>& sources, const SearchSpace& target,
                                 const data::DeviceProperties* target_device,
                                 const xgb::TreeOptions& trees);

}  // namespace graphcost::tune
