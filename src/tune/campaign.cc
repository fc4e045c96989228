#include "tune/campaign.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "core/error.h"

namespace graphcost::tune {

RecordedMeasurer::RecordedMeasurer(const SearchSpace& space) : space_(space) {
  check_data(space.has_runtimes(), space.name, "runtimes",
             "no recorded times to replay (give --measure to measure for real)");
}

Measurement RecordedMeasurer::measure(int64_t config) {
  Measurement m;
  m.config = config;
  m.failed = space_.failed[config] != 0;
  m.time = m.failed ? 0.0 : space_.runtimes[config];
  return m;
}

CampaignResult run_campaign(const SearchSpace& space, Strategy& strategy, Measurer& measurer,
                            int64_t budget, int64_t batch, uint64_t seed,
                            const CampaignObserver& observer) {
  check_data(budget > 0, "tune", "--budget", "must be positive");
  check_data(batch > 0, "tune", "--batch", "must be positive");
  History history;
  history.measured.assign(space.count, 0);
  CampaignResult result;
  strategy.reset(space, seed);
  double best = std::numeric_limits<double>::infinity();
  const int64_t limit = std::min(budget, space.count);
  while (history.size() < limit) {
    const int64_t want = std::min(batch, limit - history.size());
    const std::vector<int64_t> proposed = strategy.propose(space, history, want);
    if (proposed.empty()) break;
    check_data(static_cast<int64_t>(proposed.size()) <= want, strategy.name(), "propose",
               "proposed more configurations than asked for");
    for (int64_t config : proposed) {
      check_data(config >= 0 && config < space.count, strategy.name(), "propose",
                 "proposed configuration " + std::to_string(config) + ", not in the space");
      check_data(!history.is_measured(config), strategy.name(), "propose",
                 "proposed configuration " + std::to_string(config) + " a second time");
      history.measured[config] = 1;
      const Measurement m = measurer.measure(config);
      history.measurements.push_back(m);
      if (m.failed) {
        ++result.failed;
      } else {
        best = std::min(best, m.time);
      }
      result.best_so_far.push_back(best);
    }
    if (observer) observer(history);
  }
  result.measurements = std::move(history.measurements);
  return result;
}

void RandomStrategy::reset(const SearchSpace& space, uint64_t seed) {
  order_.resize(space.count);
  std::iota(order_.begin(), order_.end(), 0);
  Random rng = random_stream(seed, 1);
  rng.shuffle(order_);
  next_ = 0;
}

std::vector<int64_t> RandomStrategy::propose(const SearchSpace&, const History& history,
                                             int64_t count) {
  std::vector<int64_t> out;
  while (static_cast<int64_t>(out.size()) < count && next_ < order_.size()) {
    const int64_t config = order_[next_++];
    if (!history.is_measured(config)) out.push_back(config);
  }
  return out;
}

}  // namespace graphcost::tune
