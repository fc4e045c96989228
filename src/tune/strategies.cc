#include "tune/strategies.h"

#include <cmath>

#include "core/error.h"

namespace graphcost::tune {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"random", "genetic", "bo", "model"};
  return names;
}

int64_t default_batch(const std::string& name) {
  return name == "bo" || name == "model" ? 5 : 10;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, const StrategyOptions& options,
                                        const std::vector<std::string>& more) {
  if (name == "random") return std::make_unique<RandomStrategy>();
  if (name == "genetic") return std::make_unique<GeneticStrategy>(options.genetic);
  if (name == "bo" || name == "model")
    return std::make_unique<BayesianStrategy>(options.bayesian, options.prior);
  std::string valid;
  for (const std::string& s : strategy_names()) valid += (valid.empty() ? "" : ", ") + s;
  for (const std::string& s : more) valid += ", " + s;
  throw Error("tune", "--strategy", "unknown strategy '" + name + "' (valid: " + valid + ")");
}

Measurement CallbackMeasurer::measure(int64_t config) {
  Measurement m = measure_(config);
  m.config = config;
  // A time that is not a positive finite number is a failed run, as for --measure commands.
  if (!m.failed && !(std::isfinite(m.time) && m.time > 0)) m.failed = true;
  if (m.failed) m.time = 0.0;
  return m;
}

CampaignResult run_strategy(const std::string& name, const SearchSpace& space,
                            const MeasureCallback& measure, int64_t budget, int64_t batch,
                            uint64_t seed, const StrategyOptions& options) {
  std::unique_ptr<Strategy> strategy = make_strategy(name, options);
  CallbackMeasurer measurer(measure);
  return run_campaign(space, *strategy, measurer, budget, batch, seed);
}

}  // namespace graphcost::tune
