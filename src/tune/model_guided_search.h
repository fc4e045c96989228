// Model-guided search: a small ranker trained in-process on what has been measured so far
// (optionally starting from a pre-trained run), then the next batch is the configurations with
// the lowest lower confidence bound on the predicted cost, mean - kappa * std, where mean and
// std come from Monte Carlo dropout.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/graph.h"
#include "model/forward/ranker.h"
#include "tune/campaign.h"

namespace graphcost::tune {

struct ModelGuidedOptions {
  int64_t initial = 30;                 // random measurements before the first model
  std::vector<int64_t> hidden = {64, 64};  // layer widths of a fresh model
  double dropout = 0.2;                 // > 0: MC dropout needs it
  int64_t train_steps = 100;            // Adam steps after each batch
  double lr = 1e-2;
  int64_t slate_size = 64;              // measured configurations per training slate
  int64_t mc_samples = 8;               // stochastic passes per acquisition
  double kappa = 2.0;                   // weight of the uncertainty in the acquisition
  std::string pretrained;               // run folder (model.pt inside) or model file; empty: none
};

// Mean and standard deviation over `samples` passes with dropout active (train mode; nothing is
// trained) of the scores of the listed configurations, about slate_size scores per forward. The
// model's mode is restored. Our own small helper, so as not to clash with
// model/scoring/uncertainty.h's mc_dropout_scores.
std::pair<std::vector<double>, std::vector<double>> tune_mc_scores(
    model::Ranker& ranker, const model::GraphTensors& graph, const data::ConfigView& configs,
    const std::vector<int64_t>& config_indices, int64_t samples, int64_t slate_size = 4096);

// Lower confidence bound on the cost per configuration: mean - kappa * std.
std::vector<double> lower_confidence_bound(const std::vector<double>& mean,
                                           const std::vector<double>& std, double kappa);

class ModelGuidedStrategy : public Strategy {
 public:
  // graph and configs are the target's (the space was built from them) and must outlive this.
  ModelGuidedStrategy(ModelGuidedOptions options, const data::Graph& graph,
                      data::ConfigView configs);
  std::string name() const override { return "neural"; }
  void reset(const SearchSpace& space, uint64_t seed) override;
  std::vector<int64_t> propose(const SearchSpace& space, const History& history,
                               int64_t count) override;
  // Trains on history as a round of propose does, then the MC-dropout mean and standard
  // deviation of the listed configurations' scores (for diagnosis: tune_surrogate_bench).
  std::pair<std::vector<double>, std::vector<double>> score(const History& history,
                                                            const std::vector<int64_t>& configs);

 private:
  model::Ranker make_model() const;
  void fit(const History& history);

  ModelGuidedOptions options_;
  data::ConfigView configs_;
  model::GraphTensors graph_;
  model::ModelOptions model_options_;
  model::Ranker model_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
  Random rng_{0};
  std::vector<int64_t> random_order_;  // for the initial sample
};

// Loads a pre-trained model (a run folder or a model file) for the target's feature widths,
// with its dropout replaced by `dropout`; widths that differ are an Error naming the file.
model::Ranker load_pretrained_ranker(const std::string& path, int64_t node_feature_width,
                                     int64_t config_width, double dropout);

}  // namespace graphcost::tune
