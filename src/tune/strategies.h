// The strategies by name, and one entry point for callers outside the CLI (bindings, tools):
// run strategy NAME on a space with a measurement callback, a budget and a seed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tune/bayesian_search.h"
#include "tune/campaign.h"
#include "tune/genetic_search.h"
#include "tune/transfer.h"

namespace graphcost::tune {

struct StrategyOptions {
  GeneticOptions genetic;
  BayesianOptions bayesian;
  TransferPrior prior;  // for bo / model; empty: no transfer
};

// "random", "genetic", "bo", and "model" (the default model-guided search: bo). The neural
// ranker with MC dropout ("neural", tune/model_guided_search.h) needs LibTorch and the graph,
// so the CLI builds it itself.
const std::vector<std::string>& strategy_names();

// Configurations a strategy proposes per round unless told (--batch 0, the Python strategy's
// batch=None): 5 for bo / model (chosen with bench/kt_compare.py, docs/tune.md "Against Kernel
// Tuner's strategies"), 10 for the others.
int64_t default_batch(const std::string& name);

// The strategy called name; an unknown name is an Error listing strategy_names() and `more`
// (names the caller handles itself).
std::unique_ptr<Strategy> make_strategy(const std::string& name, const StrategyOptions& options,
                                        const std::vector<std::string>& more = {});

// Measures one configuration of the space (its index); a failed run returns failed = true.
using MeasureCallback = std::function<Measurement(int64_t config)>;

class CallbackMeasurer : public Measurer {
 public:
  explicit CallbackMeasurer(MeasureCallback measure) : measure_(std::move(measure)) {}
  Measurement measure(int64_t config) override;

 private:
  MeasureCallback measure_;
};

// One campaign of strategy `name` (see make_strategy) on space, measuring through `measure`.
CampaignResult run_strategy(const std::string& name, const SearchSpace& space,
                            const MeasureCallback& measure, int64_t budget, int64_t batch,
                            uint64_t seed, const StrategyOptions& options = {});

}  // namespace graphcost::tune
