// The stack's meta-learner: from each configuration's member scores (standardised within its
// graph, since ranking is per graph and members' scales differ) to one cost. Two kinds: ridge
// regression on the standardised log runtime (closed form, stack/ridge.h) and XGBoost
// rank:pairwise with one query group per graph (xgb/trees.h). The meta-learner's own setting
// (ridge's lambda; XGBoost's rounds and depth) is chosen by cross-fitting over folds of graphs
// (stack/folds.h), then it is fitted on every graph with that setting.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xgb/trees.h"

namespace graphcost::stack {

// One graph's stacking data.
struct StackGraph {
  std::string name;
  std::vector<double> features;  // configurations x members, row-major (stack_features)
  std::vector<double> runtimes;  // measured, one per configuration (positive)
};

// Row-major features of one graph from member_scores[m][i] (member m's score of configuration
// i): each member's scores standardised over the graph (eval::standardise).
std::vector<double> stack_features(const std::vector<std::vector<double>>& member_scores);

// A single graph (one program's configurations, split by `graphcost split` for the members'
// training and the stack's fit) cannot be dealt into folds of graphs: its configurations are dealt
// instead, by a seeded shuffle, round-robin, into `pieces` parts named "NAME#k" that stand in for
// graphs (in the folds, and in the final fit, which is per part as it is per graph). Every part
// needs at least 2 configurations (an Error naming the graph otherwise).
std::vector<StackGraph> split_configurations(const StackGraph& graph, int64_t pieces, int64_t width,
                                             uint64_t seed);

// The meta-learners by name: "ridge" (the default, measured in docs/stack.md) and "xgboost".
const std::vector<std::string>& meta_learner_names();

struct MetaOptions {
  std::string meta = "ridge";
  int64_t folds = 5;  // folds of graphs for cross-fitting (at most the graph count)
  uint64_t seed = 0;  // the folds' shuffle and XGBoost's seed
  int threads = 0;    // XGBoost's threads (0: all cores)
};

// A setting cross-fitting compared, and its out-of-fold mean Kendall tau.
struct CandidateResult {
  nlohmann::json setting;
  double tau = 0;
};

class MetaLearner {
 public:
  // Chooses the setting by cross-fitting over folds of `graphs` (each graph of `width` member
  // columns), then fits on every graph with it. An unknown meta name, a bad fold count or fewer
  // than 2 graphs is an Error.
  static MetaLearner fit(const std::vector<StackGraph>& graphs, int64_t width,
                         const MetaOptions& options);
  // Costs (lower = faster) of rows of stack_features.
  std::vector<double> score(const std::vector<double>& features) const;

  // {"meta", "members_width", "setting", "cross_fit": [{"setting", "tau"}], "weights" (ridge)}.
  nlohmann::json to_json() const;
  // Writes what to_json does not hold: the XGBoost meta-learner's trees, to `path` (a stack's
  // folder keeps them in meta.xgb: run::RunFolder::meta_model_path). Nothing for ridge.
  void save_model(const std::string& path) const;
  // Reads to_json's object (and the trees from `model_path` for XGBoost); an Error names `where`
  // and the key.
  static MetaLearner load(const nlohmann::json& j, const std::string& model_path,
                          const std::string& where, int threads);

  const std::string& meta() const { return meta_; }
  int64_t width() const { return width_; }
  const nlohmann::json& setting() const { return setting_; }
  const std::vector<CandidateResult>& cross_fit() const { return cross_fit_; }
  const std::vector<double>& weights() const { return weights_; }

 private:
  std::string meta_;
  int64_t width_ = 0;
  nlohmann::json setting_;
  std::vector<CandidateResult> cross_fit_;
  std::vector<double> weights_;                        // ridge
  std::shared_ptr<const xgb::GradientBoostedTrees> trees_;  // xgboost
};

}  // namespace graphcost::stack
