#include "tune/bayesian_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "tune/genetic_search.h"

namespace graphcost::tune {

BayesianStrategy::BayesianStrategy(BayesianOptions options, TransferPrior prior)
    : options_(std::move(options)), prior_(std::move(prior)) {
  check_data(options_.initial >= 2, "tune", "--initial", "must be at least 2");
  check_data(options_.ensemble.members >= 2, "tune", "--members", "must be at least 2");
  check_data(options_.ensemble.trees.rounds >= 1, "tune", "--rounds", "must be at least 1");
  check_data(options_.parents >= 1, "tune", "--parents", "must be at least 1");
  check_data(options_.radius >= 1, "tune", "--radius", "must be at least 1");
  check_data(options_.greedy >= 0, "tune", "--greedy", "must not be negative");
  check_data(options_.crossovers >= 0 && options_.random_candidates >= 0, "tune", "--candidates",
             "must not be negative");
  check_data(options_.explore >= 0 && options_.explore <= 1, "tune", "--explore",
             "must be in [0, 1]");
  check_data(options_.warp == "log" || options_.warp == "rank", "tune", "--warp",
             "must be log or rank, not '" + options_.warp + "'");
  check_data(prior_.cost.size() == prior_.failure_probability.size(), "tune", "prior",
             "one failure probability per prior cost");
}

void BayesianStrategy::reset(const SearchSpace& space, uint64_t seed) {
  check_data(prior_.cost.empty() || static_cast<int64_t>(prior_.cost.size()) == space.count,
             space.name, "prior", "the prior was made for another space");
  seed_ = seed;
  rng_ = random_stream(seed, 4);
  const int64_t params = space.parameter_count();
  const bool with_prior = !prior_.cost.empty();
  width_ = params + (with_prior ? 2 : 0);
  const std::vector<float> base = parameter_rows(space, space);
  rows_.clear();
  rows_.reserve(space.count * width_);
  for (int64_t j = 0; j < space.count; ++j) {
    rows_.insert(rows_.end(), base.begin() + j * params, base.begin() + (j + 1) * params);
    if (with_prior) {
      rows_.push_back(static_cast<float>(prior_.cost[j]));
      rows_.push_back(static_cast<float>(prior_.failure_probability[j]));
    }
  }
  ensemble_ = BaggedTrees();
  failure_model_.reset();
}

std::vector<float> BayesianStrategy::rows_for(const std::vector<int64_t>& configs) const {
  std::vector<float> out;
  out.reserve(configs.size() * width_);
  for (int64_t j : configs)
    out.insert(out.end(), rows_.begin() + j * width_, rows_.begin() + (j + 1) * width_);
  return out;
}

void BayesianStrategy::fit(const SearchSpace&, const History& history) {
  std::vector<int64_t> ok;
  std::vector<float> log_times;
  std::vector<int64_t> all;
  std::vector<float> failed;
  for (const Measurement& m : history.measurements) {
    all.push_back(m.config);
    failed.push_back(m.failed ? 1.0f : 0.0f);
    if (m.failed) continue;
    ok.push_back(m.config);
    log_times.push_back(static_cast<float>(std::log(m.time)));
  }
  // A round's trees depend on the seed and the round, so a campaign is reproducible.
  const uint64_t round_seed = seed_ * 1000003ull + static_cast<uint64_t>(history.size());
  if (options_.warp == "rank") log_times = normal_scores(log_times);
  best_label_ = log_times.empty() ? 0.0 : *std::min_element(log_times.begin(), log_times.end());
  ensemble_ = BaggedTrees();
  if (ok.size() >= 2) ensemble_.fit(rows_for(ok), width_, log_times, options_.ensemble, round_seed);
  // Failures are a class of their own (a classifier), never a made-up slow time that would
  // bend the regression; fitted once both classes were measured.
  failure_model_.reset();
  if (!ok.empty() && ok.size() < all.size()) {
    xgb::TreeOptions classifier = options_.ensemble.trees;
    classifier.objective = "binary:logistic";
    classifier.rounds = std::max<int64_t>(1, classifier.rounds / 2);
    classifier.seed = round_seed;
    failure_model_ = xgb::GradientBoostedTrees::train(rows_for(all), width_, failed, classifier);
  }
}

SurrogateSnapshot BayesianStrategy::score(const SearchSpace& space, const History& history,
                                          const std::vector<int64_t>& configs) {
  fit(space, history);
  SurrogateSnapshot out;
  out.configs = configs;
  const std::vector<float> rows = rows_for(configs);
  if (ensemble_.fitted()) {
    ensemble_.predict(rows, &out.mean, &out.std);
  } else {
    out.mean.assign(configs.size(), 0.0);
    out.std.assign(configs.size(), 1.0);
  }
  if (failure_model_) {
    out.failure = failure_model_->predict(rows);
  } else if (!prior_.cost.empty()) {
    for (int64_t j : configs) out.failure.push_back(prior_.failure_probability[j]);
  } else {
    out.failure.assign(configs.size(), 0.0);
  }
  return out;
}

std::vector<int64_t> BayesianStrategy::candidates(const SearchSpace& space, const History& history) {
  // Parents: the fastest measured configurations.
  std::vector<const Measurement*> good;
  for (const Measurement& m : history.measurements) {
    if (!m.failed) good.push_back(&m);
  }
  std::sort(good.begin(), good.end(), [](const Measurement* a, const Measurement* b) {
    return a->time < b->time || (a->time == b->time && a->config < b->config);
  });
  if (static_cast<int64_t>(good.size()) > options_.parents) good.resize(options_.parents);
  std::vector<uint8_t> taken = history.measured;
  std::vector<int64_t> pool;
  auto add = [&](int64_t j) {
    if (j >= 0 && !taken[j]) {
      taken[j] = 1;
      pool.push_back(j);
    }
  };
  const int64_t params = space.parameter_count();
  // Whether configurations j and i differ in at most `limit` parameters.
  auto within = [&](int64_t j, int64_t i, int64_t limit) {
    const int32_t* a = space.config_levels(j);
    const int32_t* b = space.config_levels(i);
    int64_t differ = 0;
    for (int64_t k = 0; k < params && differ <= limit; ++k) differ += a[k] != b[k];
    return differ <= limit;
  };
  // Mutations: every unmeasured configuration one parameter away from a parent.
  for (int64_t j = 0; j < space.count; ++j) {
    if (taken[j]) continue;
    for (const Measurement* parent : good) {
      if (within(j, parent->config, 1)) {
        add(j);
        break;
      }
    }
  }
  // The neighbourhood of the best measured configuration, wider than a mutation: a trust
  // region around the incumbent.
  if (options_.radius > 1 && !good.empty()) {
    for (int64_t j = 0; j < space.count; ++j) {
      if (!taken[j] && within(j, good.front()->config, options_.radius)) add(j);
    }
  }
  // Crossover: uniform crossover of two parents, mapped to the nearest unmeasured configuration.
  if (good.size() >= 2) {
    std::vector<int32_t> genes(params);
    for (int64_t c = 0; c < options_.crossovers; ++c) {
      const int32_t* a = space.config_levels(good[rng_.below(good.size())]->config);
      const int32_t* b = space.config_levels(good[rng_.below(good.size())]->config);
      for (int64_t k = 0; k < params; ++k) genes[k] = rng_.uniform() < 0.5 ? a[k] : b[k];
      add(nearest_free_config(space, genes, taken, static_cast<int64_t>(rng_.below(space.count))));
    }
  }
  // With a prior: its most promising unmeasured configurations stay in the pool.
  if (!prior_.cost.empty()) {
    std::vector<int64_t> order(space.count);
    std::iota(order.begin(), order.end(), 0);
    const int64_t keep = std::min<int64_t>(space.count, options_.random_candidates);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                      [&](int64_t x, int64_t y) { return prior_.cost[x] < prior_.cost[y]; });
    for (int64_t k = 0; k < keep; ++k) add(order[k]);
  }
  // A random sample of the rest, so far regions compete too.
  std::vector<int64_t> free;
  for (int64_t j = 0; j < space.count; ++j) {
    if (!taken[j]) free.push_back(j);
  }
  for (int64_t k = 0; k < options_.random_candidates && k < static_cast<int64_t>(free.size()); ++k) {
    std::swap(free[k], free[k + rng_.below(free.size() - k)]);
    add(free[k]);
  }
  return pool;
}

std::vector<int64_t> BayesianStrategy::propose(const SearchSpace& space, const History& history,
                                               int64_t count) {
  std::vector<uint8_t> chosen = history.measured;
  std::vector<int64_t> out;
  auto take = [&](int64_t j) {
    if (static_cast<int64_t>(out.size()) < count && !chosen[j]) {
      chosen[j] = 1;
      out.push_back(j);
    }
  };
  auto take_random = [&](int64_t n) {
    std::vector<int64_t> free;
    for (int64_t j = 0; j < space.count; ++j) {
      if (!chosen[j]) free.push_back(j);
    }
    for (int64_t k = 0; k < n && k < static_cast<int64_t>(free.size()); ++k) {
      std::swap(free[k], free[k + rng_.below(free.size() - k)]);
      take(free[k]);
    }
  };
  // The exploration floor: a share of every batch at random (rounded at random, so a batch of
  // 1 explores with probability explore).
  const double share = options_.explore * static_cast<double>(count);
  int64_t explore = static_cast<int64_t>(share);
  if (rng_.uniform() < share - static_cast<double>(explore)) ++explore;
  const int64_t guided = count - explore;
  int64_t successes = 0;
  for (const Measurement& m : history.measurements) successes += m.failed ? 0 : 1;
  if (history.size() < options_.initial || successes < 2) {
    if (!prior_.cost.empty()) {
      // The prior's best guesses that it does not expect to fail.
      std::vector<int64_t> order(space.count);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
        const bool fx = prior_.failure_probability[x] > 0.5, fy = prior_.failure_probability[y] > 0.5;
        return fx != fy ? fy : prior_.cost[x] < prior_.cost[y];
      });
      for (int64_t j : order) {
        if (static_cast<int64_t>(out.size()) >= guided) break;
        take(j);
      }
    }
    take_random(count - static_cast<int64_t>(out.size()));
    return out;
  }
  const std::vector<int64_t> pool = candidates(space, history);
  const SurrogateSnapshot s = score(space, history, pool);  // fits: sets best_label_
  std::vector<double> value(pool.size());
  for (size_t i = 0; i < pool.size(); ++i)
    value[i] = expected_improvement(s.mean[i], s.std[i], best_label_) * (1.0 - s.failure[i]);
  std::vector<size_t> order(pool.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties (EI of 0 far from the best) go to the lower predicted mean.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return value[a] > value[b] || (value[a] == value[b] && s.mean[a] < s.mean[b]);
  });
  if (options_.greedy > 0) {
    std::vector<size_t> by_mean(pool.size());
    std::iota(by_mean.begin(), by_mean.end(), 0);
    std::stable_sort(by_mean.begin(), by_mean.end(), [&](size_t a, size_t b) {
      const double fa = s.mean[a] + (s.failure[a] > 0.5 ? 1e9 : 0.0);
      const double fb = s.mean[b] + (s.failure[b] > 0.5 ? 1e9 : 0.0);
      return fa < fb;
    });
    const int64_t greedy = std::min(options_.greedy, guided);
    for (size_t i : by_mean) {
      if (static_cast<int64_t>(out.size()) >= greedy) break;
      take(pool[i]);
    }
  }
  for (size_t i : order) {
    if (static_cast<int64_t>(out.size()) >= guided) break;
    take(pool[i]);
  }
  take_random(count - static_cast<int64_t>(out.size()));
  return out;
}

}  // namespace graphcost::tune
