// The surrogates of model-guided search, looked at directly (docs/tune.md): each device of a
// Kernel Tuner kernel folder in turn the target; after n random measurements, how well the
// neural ranker of `--strategy neural` (MC dropout, failures as 10x the slowest time) and the
// bagged trees of `--strategy bo` rank the unmeasured configurations, near the optimum in
// particular, how many of their favourites fail, and (bo) how often the true log time falls in
// the predicted 90% interval. With n = 0, the zero-shot prior of bo from the other devices
// (the target held out entirely) against ranking by each other device's measured times.
// Prints markdown rows and `figure:` lines.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>

#include "core/error.h"
#include "eval/metrics.h"
#include "model/kernels/threads.h"
#include "tune/bayesian_search.h"
#include "tune/model_guided_search.h"
#include "tune/transfer.h"

namespace graphcost::tune {
namespace {

struct Ranking {
  double tau_all = NAN;      // Kendall tau over the successful configurations scored
  double tau_top = NAN;      // the same among the true best 5% of them
  double optimum_pct = NAN;  // the optimum's place in the predicted order, % (0 = first)
  double failed_top20 = NAN; // failures among the 20 predicted best
};

// predicted: one cost per entry of configs (lower = faster).
Ranking rank_quality(const SearchSpace& s, const std::vector<int64_t>& configs,
                     const std::vector<double>& predicted) {
  Ranking r;
  std::vector<double> p, t;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (s.failed[configs[i]]) continue;
    p.push_back(predicted[i]);
    t.push_back(s.runtimes[configs[i]]);
  }
  r.tau_all = eval::kendall_tau(p, t);
  std::vector<double> sorted = t;
  std::sort(sorted.begin(), sorted.end());
  const double cut = sorted[std::max<size_t>(1, sorted.size() / 20) - 1];
  std::vector<double> pt, tt;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] <= cut) {
      pt.push_back(p[i]);
      tt.push_back(t[i]);
    }
  }
  if (pt.size() >= 2) r.tau_top = eval::kendall_tau(pt, tt);
  std::vector<size_t> order(configs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return predicted[a] < predicted[b]; });
  int64_t failed = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const int64_t j = configs[order[k]];
    if (k < 20) failed += s.failed[j];
    if (!s.failed[j] && s.runtimes[j] == sorted.front() && std::isnan(r.optimum_pct))
      r.optimum_pct = 100.0 * k / order.size();
  }
  r.failed_top20 = failed / 20.0;
  return r;
}

// A configuration's parameter values as one string.
std::string key(const SearchSpace& s, int64_t j) {
  std::string out;
  for (const std::string& v : s.values(j)) out += v + ",";
  return out;
}

std::string fmt(double v, const char* f = "%.2f") {
  if (std::isnan(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// How a campaign spends its measurements after the first `initial`: the share that failed, the
// share one parameter away from the best configuration known at the time (exploitation), the
// measurement of the last improvement, and the best time found over the optimum.
struct Spending {
  double failed = 0, local = 0, last_improvement = 0, final_ratio = 0;
};

Spending spending(const SearchSpace& s, const CampaignResult& r, int64_t initial) {
  Spending out;
  int64_t incumbent = -1, counted = 0;
  for (size_t k = 0; k < r.measurements.size(); ++k) {
    const Measurement& m = r.measurements[k];
    if (static_cast<int64_t>(k) >= initial) {
      ++counted;
      out.failed += m.failed;
      if (incumbent >= 0) {
        int64_t differ = 0;
        for (int64_t p = 0; p < s.parameter_count(); ++p)
          differ += s.config_levels(m.config)[p] != s.config_levels(incumbent)[p];
        out.local += differ <= 1;
      }
    }
    if (!m.failed && (incumbent < 0 || m.time < s.runtimes[incumbent])) {
      incumbent = m.config;
      out.last_improvement = static_cast<double>(k + 1);
    }
  }
  out.failed /= std::max<int64_t>(1, counted);
  out.local /= std::max<int64_t>(1, counted);
  out.final_ratio = r.best_so_far.back() / s.optimum();
  return out;
}

void run_campaigns(const std::string& data, const std::vector<std::string>& devices,
                   int64_t budget, int64_t seeds) {
  std::printf("\n| target | strategy | failed after the start | one parameter from the best | last improvement | best / optimum |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const std::string& device : devices) {
    TuneRecords records = open_tune_records(data, "train", "", device);
    const data::Collection& c = *records.collection;
    const SearchSpace space =
        make_search_space(c.graph(records.target).name, c.configs(records.target), records.layout);
    RecordedMeasurer m(space);
    for (const char* name : {"neural", "bo"}) {
      Spending sum;
      for (int64_t seed = 0; seed < seeds; ++seed) {
        std::unique_ptr<Strategy> st;
        int64_t initial = 0;
        if (std::string(name) == "neural") {
          ModelGuidedOptions o;
          initial = o.initial;
          st = std::make_unique<ModelGuidedStrategy>(o, c.graph(records.target), c.configs(records.target));
        } else {
          BayesianOptions o;
          initial = o.initial;
          st = std::make_unique<BayesianStrategy>(o);
        }
        const Spending one = spending(space, run_campaign(space, *st, m, budget, 20, seed), initial);
        sum.failed += one.failed / seeds;
        sum.local += one.local / seeds;
        sum.last_improvement += one.last_improvement / seeds;
        sum.final_ratio += one.final_ratio / seeds;
      }
      std::printf("| %s | %s | %.3f | %.2f | %.0f | %.3f |\n", device.c_str(), name, sum.failed,
                  sum.local, sum.last_improvement, sum.final_ratio);
      std::fflush(stdout);
    }
  }
}

void run(const std::string& data, const std::vector<std::string>& devices,
         const std::vector<int64_t>& measured, int64_t seeds, bool neural) {
  const data::DeviceTable table = data::DeviceTable::builtin();
  std::printf("| target | n | surrogate | tau | tau, best 5%% | optimum's place %% | failed of top 20 | 90%% interval holds |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const std::string& device : devices) {
    TuneRecords records = open_tune_records(data, "train", "", device);
    const data::Collection& c = *records.collection;
    const SearchSpace space =
        make_search_space(c.graph(records.target).name, c.configs(records.target), records.layout);
    // Zero-shot: the prior from the other devices, and each other device's own times.
    const std::vector<PriorSpace> sources = load_prior_spaces(data, "train", space.name, table);
    std::vector<int64_t> all(space.count);
    std::iota(all.begin(), all.end(), 0);
    const TransferPrior prior =
        fit_transfer_prior(sources, space, table.find(space.name), BayesianOptions{}.ensemble.trees);
    const Ranking z = rank_quality(space, all, prior.cost);
    std::printf("| %s | 0 | bo prior from the other devices | %s | %s | %s | %s | |\n", device.c_str(),
                fmt(z.tau_all).c_str(), fmt(z.tau_top).c_str(), fmt(z.optimum_pct, "%.1f").c_str(),
                fmt(z.failed_top20).c_str());
    std::printf("figure: zero_shot_tau_%s_prior: %.3f\n", space.name.c_str(), z.tau_all);
    for (const PriorSpace& other : sources) {
      // The other device's time of each target configuration (matched by parameter values:
      // one folder, one layout); a failure there or a configuration it lacks ranks last.
      std::map<std::string, int64_t> index;
      for (int64_t j = 0; j < other.space.count; ++j) index[key(other.space, j)] = j;
      std::vector<double> times(space.count, 1e30);
      for (int64_t j = 0; j < space.count; ++j) {
        const auto it = index.find(key(space, j));
        if (it != index.end() && !other.space.failed[it->second])
          times[j] = other.space.runtimes[it->second];
      }
      const Ranking o = rank_quality(space, all, times);
      std::printf("| %s | 0 | times measured on %s | %s | %s | %s | %s | |\n", device.c_str(),
                  other.device_known ? other.device.name.c_str() : other.space.name.c_str(),
                  fmt(o.tau_all).c_str(), fmt(o.tau_top).c_str(), fmt(o.optimum_pct, "%.1f").c_str(),
                  fmt(o.failed_top20).c_str());
      std::printf("figure: zero_shot_tau_%s_by_%s: %.3f\n", space.name.c_str(),
                  other.space.name.c_str(), o.tau_all);
    }
    for (int64_t n : measured) {
      Ranking sum_bo, sum_nn;
      double cover_raw = 0, cover_cal = 0;
      auto add = [](Ranking& a, const Ranking& b) {
        a.tau_all = (std::isnan(a.tau_all) ? 0 : a.tau_all) + b.tau_all;
        a.tau_top = (std::isnan(a.tau_top) ? 0 : a.tau_top) + b.tau_top;
        a.optimum_pct = (std::isnan(a.optimum_pct) ? 0 : a.optimum_pct) + b.optimum_pct;
        a.failed_top20 = (std::isnan(a.failed_top20) ? 0 : a.failed_top20) + b.failed_top20;
      };
      for (int64_t seed = 0; seed < seeds; ++seed) {
        History h;
        h.measured.assign(space.count, 0);
        RandomStrategy random;
        random.reset(space, seed);
        RecordedMeasurer m(space);
        for (int64_t j : random.propose(space, h, n)) {
          h.measured[j] = 1;
          h.measurements.push_back(m.measure(j));
        }
        std::vector<int64_t> rest;
        for (int64_t j = 0; j < space.count; ++j) {
          if (!h.measured[j]) rest.push_back(j);
        }
        std::vector<double> truth;
        std::vector<int64_t> ok;
        for (int64_t j : rest) {
          if (!space.failed[j]) truth.push_back(std::log(space.runtimes[j]));
        }
        for (bool calibrate : {false, true}) {
          BayesianOptions o;
          o.ensemble.calibrate = calibrate;
          BayesianStrategy bo(o);
          bo.reset(space, seed);
          const SurrogateSnapshot snap = bo.score(space, h, rest);
          std::vector<double> mean, sd;
          for (size_t i = 0; i < rest.size(); ++i) {
            if (space.failed[rest[i]]) continue;
            mean.push_back(snap.mean[i]);
            sd.push_back(snap.std[i]);
          }
          (calibrate ? cover_cal : cover_raw) += interval_coverage(mean, sd, truth, 1.645);
          if (!calibrate) {
            // What bo ranks by: the mean, failures pushed back by their predicted probability.
            std::vector<double> cost(rest.size());
            for (size_t i = 0; i < rest.size(); ++i)
              cost[i] = snap.mean[i] + (snap.failure[i] > 0.5 ? 1e6 : 0.0);
            add(sum_bo, rank_quality(space, rest, cost));
          }
        }
        if (neural) {
          ModelGuidedOptions o;
          o.initial = 1;
          o.train_steps = 100 * std::max<int64_t>(1, n / 20);  // as many steps as a campaign's rounds
          ModelGuidedStrategy nn(o, c.graph(records.target), c.configs(records.target));
          nn.reset(space, seed);
          const auto [mean, sd] = nn.score(h, rest);
          add(sum_nn, rank_quality(space, rest, lower_confidence_bound(mean, sd, o.kappa)));
        }
      }
      auto row = [&](const char* name, Ranking r, const std::string& cover) {
        std::printf("| %s | %lld | %s | %s | %s | %s | %s | %s |\n", device.c_str(), (long long)n, name,
                    fmt(r.tau_all / seeds).c_str(), fmt(r.tau_top / seeds).c_str(),
                    fmt(r.optimum_pct / seeds, "%.1f").c_str(), fmt(r.failed_top20 / seeds).c_str(),
                    cover.c_str());
      };
      row("bo bagged trees", sum_bo,
          fmt(cover_raw / seeds) + " raw, " + fmt(cover_cal / seeds) + " out-of-bag scaled");
      std::printf("figure: coverage90_%s_n%lld: %.3f raw %.3f scaled\n", space.name.c_str(),
                  (long long)n, cover_raw / seeds, cover_cal / seeds);
      if (neural) row("neural MC dropout (LCB)", sum_nn, "");
    }
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace graphcost::tune

int main(int argc, char** argv) {
  CLI::App app("Surrogate quality of the model-guided tuning strategies on Kernel Tuner records");
  std::string data = "../shared/data/kernel_tuner/convolution";
  std::vector<std::string> devices = {"A100", "A4000", "A6000", "W6600"};
  std::vector<int64_t> measured = {100, 300};
  int64_t seeds = 3;
  bool no_neural = false;
  int64_t campaign_budget = 0;
  app.add_option("--data", data, "a Kernel Tuner kernel folder")->capture_default_str();
  app.add_option("--devices", devices, "targets, each held out in turn")->capture_default_str();
  app.add_option("--measured", measured, "random measurements before scoring")->capture_default_str();
  app.add_option("--seeds", seeds, "seeds per cell")->capture_default_str();
  app.add_flag("--no-neural", no_neural, "leave out the neural ranker (slow)");
  app.add_option("--campaign-budget", campaign_budget,
                 "also run neural and bo campaigns of this budget (batch 20) and show how they "
                 "spend it")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    graphcost::model::set_threads(1);
    graphcost::tune::run(data, devices, measured, seeds, !no_neural);
    if (campaign_budget > 0) graphcost::tune::run_campaigns(data, devices, campaign_budget, seeds);
  } catch (const graphcost::Error& e) {
    std::fprintf(stderr, "tune_surrogate_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
