// A tuning campaign: a strategy proposes configurations, a measurer times them, until the
// budget of measurements is spent. Each configuration is measured at most once.
#pragma once

#include <cstddef>  // core/random.h uses size_t
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/random.h"
#include "tune/search_space.h"

namespace graphcost::tune {

struct Measurement {
  int64_t config = -1;
  bool failed = false;
  double time = 0.0;  // meaningful only when !failed
};

// What has been measured so far in one campaign.
struct History {
  std::vector<Measurement> measurements;  // in measuring order
  std::vector<uint8_t> measured;          // per configuration of the space, 1 once measured

  bool is_measured(int64_t config) const { return measured[config] != 0; }
  int64_t size() const { return static_cast<int64_t>(measurements.size()); }
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  virtual Measurement measure(int64_t config) = 0;
};

// Replays the recorded times of the space; a recorded failure is a failed measurement.
class RecordedMeasurer : public Measurer {
 public:
  explicit RecordedMeasurer(const SearchSpace& space);
  Measurement measure(int64_t config) override;

 private:
  const SearchSpace& space_;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // Starts a new campaign on space (called before the first propose).
  virtual void reset(const SearchSpace& space, uint64_t seed) = 0;
  // Up to count distinct configurations not measured yet; fewer (or none) ends the campaign.
  virtual std::vector<int64_t> propose(const SearchSpace& space, const History& history,
                                       int64_t count) = 0;
};

struct CampaignResult {
  std::vector<Measurement> measurements;
  // After each measurement, the best time found so far (+infinity until one succeeds).
  std::vector<double> best_so_far;
  int64_t failed = 0;
};

// Called after each batch with the measurements made so far.
using CampaignObserver = std::function<void(const History&)>;

// Runs one campaign of at most budget measurements (and at most the space's size), asking the
// strategy for batch configurations at a time. A proposal that is out of range, already
// measured or repeated is an Error naming the strategy (a bug in it, but never a silent repeat).
CampaignResult run_campaign(const SearchSpace& space, Strategy& strategy, Measurer& measurer,
                            int64_t budget, int64_t batch, uint64_t seed,
                            const CampaignObserver& observer = nullptr);

// Uniformly random configurations among those not measured yet.
class RandomStrategy : public Strategy {
 public:
  std::string name() const override { return "random"; }
  void reset(const SearchSpace& space, uint64_t seed) override;
  std::vector<int64_t> propose(const SearchSpace& space, const History& history,
                               int64_t count) override;

 private:
  std::vector<int64_t> order_;  // a random permutation of the space, consumed in order
  size_t next_ = 0;
};

}  // namespace graphcost::tune
