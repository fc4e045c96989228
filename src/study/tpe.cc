#include "study/tpe.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "study/parzen.h"

namespace graphcost::study {

namespace {

using nlohmann::json;

// A finished trial as TPE ranks it.
struct Ranked {
  const TrialRecord* trial;
  int group;          // 0 complete, 1 pruned
  int64_t last_step;  // pruned: the last step reported
  double loss;        // smaller is better (the value, negated when maximizing)
};

std::vector<Ranked> ranked_trials(const std::vector<TrialRecord>& history, bool maximize) {
  std::vector<Ranked> ranked;
  for (const TrialRecord& t : history) {
    const double sign = maximize ? -1.0 : 1.0;
    if (t.state == TrialState::Complete && t.value && std::isfinite(*t.value))
      ranked.push_back({&t, 0, 0, sign * *t.value});
    else if (t.state == TrialState::Pruned && !t.intermediate.empty() &&
             std::isfinite(t.intermediate.rbegin()->second))
      ranked.push_back(
          {&t, 1, t.intermediate.rbegin()->first, sign * t.intermediate.rbegin()->second});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.group != b.group) return a.group < b.group;
    if (a.last_step != b.last_step) return a.last_step > b.last_step;
    if (a.loss != b.loss) return a.loss < b.loss;
    return a.trial->number < b.trial->number;
  });
  return ranked;
}

// The internal coordinates of a group's parameters in a trial (all present, by grouping).
std::vector<double> group_point(const std::vector<const Parameter*>& group,
                                const TrialRecord& trial) {
  std::vector<double> x;
  for (const Parameter* p : group) x.push_back(*internal_value(*p, trial.params[p->key]));
  return x;
}

}  // namespace

TpeOptions parse_tpe_options(const json& options) {
  TpeOptions tpe;
  const std::string where = "tpe sampler options";
  for (const auto& [key, value] : options.items()) {
    if (key == "startup_trials" || key == "candidates") {
      if (!value.is_number_integer() || value.get<int64_t>() < (key == "candidates" ? 1 : 0))
        throw Error(where, key,
                    std::string("expected an integer of at least ") +
                        (key == "candidates" ? "1" : "0") + ", got " + value.dump());
      (key == "candidates" ? tpe.candidates : tpe.startup_trials) = value.get<int64_t>();
    } else if (key == "prior_weight") {
      if (!value.is_number() || !(value.get<double>() > 0))
        throw Error(where, key, "expected a positive number, got " + value.dump());
      tpe.prior_weight = value.get<double>();
    } else {
      throw Error(where, key, "unknown option (expected startup_trials, candidates, prior_weight)");
    }
  }
  return tpe;
}

int64_t tpe_good_count(int64_t n) {
  return std::min<int64_t>(static_cast<int64_t>(std::ceil(0.1 * static_cast<double>(n))), 25);
}

json TpeSampler::sample(const SearchSpace& space, const std::vector<TrialRecord>& history,
                        int64_t trial_number, bool maximize) {
  graphcost::Random random = random_stream(seed_, static_cast<uint64_t>(trial_number));
  const std::vector<Ranked> ranked = ranked_trials(history, maximize);
  if (static_cast<int64_t>(ranked.size()) < options_.startup_trials)
    return sample_random(space, random);
  const size_t good_count =
      static_cast<size_t>(tpe_good_count(static_cast<int64_t>(ranked.size())));

  // Groups: parameters with the same pattern of presence over the ranked trials (multivariate),
  // or one parameter each (independent). Keyed by the first member's file position.
  const size_t count = space.parameters.size();
  std::vector<std::vector<bool>> presence(count);
  for (size_t i = 0; i < count; ++i)
    for (const Ranked& r : ranked)
      presence[i].push_back(
          r.trial->params.is_object() && r.trial->params.contains(space.parameters[i].key) &&
          internal_value(space.parameters[i], r.trial->params[space.parameters[i].key])
              .has_value());
  std::vector<size_t> group_of(count);
  std::vector<std::vector<size_t>> groups;
  std::map<std::vector<bool>, size_t> group_by_presence;
  for (size_t i = 0; i < count; ++i) {
    size_t g = groups.size();
    if (options_.multivariate) {
      auto [it, inserted] = group_by_presence.emplace(presence[i], groups.size());
      g = it->second;
      if (!inserted) {
        groups[g].push_back(i);
        group_of[i] = g;
        continue;
      }
    }
    groups.push_back({i});
    group_of[i] = g;
  }

  // Parameters in file order; a group is drawn when its first active member is reached.
  std::vector<std::vector<double>> draws(groups.size());
  json assignment = json::object();
  for (size_t i = 0; i < count; ++i) {
    const Parameter& p = space.parameters[i];
    if (!condition_met(p, assignment)) continue;
    const size_t g = group_of[i];
    std::vector<const Parameter*> members;
    for (size_t m : groups[g]) members.push_back(&space.parameters[m]);
    if (draws[g].empty()) {
      std::vector<std::vector<double>> good, bad;
      for (size_t r = 0; r < ranked.size(); ++r) {
        if (!presence[i][r]) continue;
        (r < good_count ? good : bad).push_back(group_point(members, *ranked[r].trial));
      }
      if (good.empty() && bad.empty()) {
        for (const Parameter* m : members)
          draws[g].push_back(*internal_value(*m, sample_random_parameter(*m, random)));
      } else {
        const ParzenEstimator below(members, good, options_.prior_weight, options_.multivariate);
        const ParzenEstimator above(members, bad, options_.prior_weight, options_.multivariate);
        double best_score = -INFINITY;
        for (int64_t c = 0; c < options_.candidates; ++c) {
          std::vector<double> x = below.sample(random);
          const double score = below.log_density(x) - above.log_density(x);
          if (draws[g].empty() || score > best_score) {
            best_score = score;
            draws[g] = std::move(x);
          }
        }
      }
    }
    const size_t d =
        static_cast<size_t>(std::find(groups[g].begin(), groups[g].end(), i) - groups[g].begin());
    assignment[p.key] = value_of_internal(p, draws[g][d]);
  }
  return assignment;
}

}  // namespace graphcost::study
