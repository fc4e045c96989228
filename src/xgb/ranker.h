// A gradient-boosted-tree ranker through XGBoost's C API (objective rank:pairwise, one query
// group per graph), on the fixed-width rows of xgb/features.h: the baseline of TVM's cost model
// and of several TpuGraphs teams, and a fast option for small data. Scores are costs like the
// neural ranker's: lower means faster.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/collection.h"
#include "xgb/features.h"
#include "xgb/options.h"

namespace graphcost::xgb {

// Relevance labels for rank:pairwise (higher = better): how many of the group's configurations
// are strictly slower; equal runtimes get equal labels, so they form no pair.
std::vector<float> relevance_labels(const std::vector<double>& runtimes);

class XgbRanker {
 public:
  // Trains on every graph of the collection with runtimes and >= 2 configurations (their
  // measured order is the target); rounds < 1 or nothing to train on is an Error.
  static XgbRanker train(const data::Collection& collection, const XgbOptions& options);
  // Loads a model saved by save(); a missing or malformed file is an Error naming it.
  static XgbRanker load(const std::string& path, const XgbOptions& options);
  // Writes the booster (XGBoost's JSON model format) atomically.
  void save(const std::string& path) const;
  // Costs of the listed configurations (all when indices is empty).
  std::vector<double> score(const data::Graph& graph, const data::ConfigView& configs,
                            const std::vector<int64_t>& indices = {}) const;
  const XgbOptions& options() const { return options_; }

 private:
  struct Booster;
  XgbRanker(XgbOptions options, std::shared_ptr<Booster> booster);
  XgbOptions options_;
  std::shared_ptr<Booster> booster_;
};

}  // namespace graphcost::xgb
