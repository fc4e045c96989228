#include "study/pruner.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.h"

namespace graphcost::study {

namespace {

using nlohmann::json;

// Reads the integer options of a pruner over their defaults; unknown keys are Errors.
void read_integer_options(const json& options, const std::string& pruner,
                          std::vector<std::pair<const char*, int64_t*>> fields,
                          int64_t minimum_of_last) {
  const json given = options.is_null() ? json::object() : options;
  const std::string where = pruner + " pruner options";
  if (!given.is_object()) throw Error(where, "", "expected a JSON object");
  for (const auto& [key, value] : given.items()) {
    auto field =
        std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return key == f.first; });
    if (field == fields.end()) {
      std::string valid;
      for (const auto& f : fields) valid += std::string(valid.empty() ? "" : ", ") + f.first;
      throw Error(where, key, "unknown option (expected " + valid + ")");
    }
    const int64_t minimum = field + 1 == fields.end() ? minimum_of_last : 0;
    if (!value.is_number_integer() || value.get<int64_t>() < minimum)
      throw Error(
          where, key,
          "expected an integer of at least " + std::to_string(minimum) + ", got " + value.dump());
    *field->second = value.get<int64_t>();
  }
}

bool better(double a, double b, bool maximize) { return maximize ? a > b : a < b; }

class NoPruner : public Pruner {
 public:
  bool should_prune(const TrialRecord&, int64_t, const std::vector<TrialRecord>&,
                    bool) const override {
    return false;
  }
};

class MedianPruner : public Pruner {
 public:
  explicit MedianPruner(const json& options) {
    read_integer_options(options, "median",
                         {{"startup_trials", &startup_trials_}, {"warmup_steps", &warmup_steps_}},
                         0);
  }
  bool should_prune(const TrialRecord& trial, int64_t step, const std::vector<TrialRecord>& history,
                    bool maximize) const override {
    if (step < warmup_steps_) return false;
    int64_t completed = 0;
    std::vector<double> others;
    for (const TrialRecord& t : history) {
      if (t.number == trial.number) continue;
      if (t.state == TrialState::Complete) ++completed;
      if (t.state != TrialState::Complete && t.state != TrialState::Pruned) continue;
      auto at = t.intermediate.find(step);
      if (at != t.intermediate.end() && std::isfinite(at->second)) others.push_back(at->second);
    }
    if (completed < startup_trials_ || others.empty()) return false;
    std::optional<double> best;
    for (const auto& [s, value] : trial.intermediate)
      if (s <= step && !std::isnan(value) && (!best || better(value, *best, maximize)))
        best = value;
    if (!best) return true;  // only NaNs reported: worse than anything
    std::sort(others.begin(), others.end());
    const size_t n = others.size();
    const double median = n % 2 ? others[n / 2] : 0.5 * (others[n / 2 - 1] + others[n / 2]);
    return better(median, *best, maximize);
  }

 private:
  int64_t startup_trials_ = 5;
  int64_t warmup_steps_ = 0;
};

class AshaPruner : public Pruner {
 public:
  explicit AshaPruner(const json& options) {
    read_integer_options(options, "asha",
                         {{"min_resource", &min_resource_}, {"reduction_factor", &reduction_}}, 2);
    if (min_resource_ < 1)
      throw Error("asha pruner options", "min_resource", "expected an integer of at least 1");
  }
  bool should_prune(const TrialRecord& trial, int64_t step, const std::vector<TrialRecord>& history,
                    bool maximize) const override {
    // The highest rung this report reaches that the trial's earlier reports had not.
    int64_t previous = -1;
    for (const auto& [s, value] : trial.intermediate)
      if (s < step) previous = s;
    std::optional<int64_t> rung;
    for (int64_t r = min_resource_; r <= step; r *= reduction_)
      if (r > previous) rung = r;
    if (!rung) return false;
    const std::optional<double> value = value_at_rung(trial, *rung);
    if (!value || std::isnan(*value)) return true;
    std::vector<double> values{*value};
    for (const TrialRecord& t : history) {
      if (t.number == trial.number) continue;
      const std::optional<double> v = value_at_rung(t, *rung);
      if (v && !std::isnan(*v)) values.push_back(*v);
    }
    const size_t keep = std::max<size_t>(1, values.size() / static_cast<size_t>(reduction_));
    std::sort(values.begin(), values.end(),
              [&](double a, double b) { return better(a, b, maximize); });
    return better(values[keep - 1], *value, maximize);
  }

 private:
  // The first value a trial reported at a step >= rung.
  static std::optional<double> value_at_rung(const TrialRecord& t, int64_t rung) {
    auto at = t.intermediate.lower_bound(rung);
    if (at == t.intermediate.end()) return std::nullopt;
    return at->second;
  }
  int64_t min_resource_ = 1;
  int64_t reduction_ = 3;
};

}  // namespace

std::unique_ptr<Pruner> make_pruner(const std::string& name, const json& options) {
  if (name == "median") return std::make_unique<MedianPruner>(options);
  if (name == "asha") return std::make_unique<AshaPruner>(options);
  if (name == "none") {
    if (options.is_object() && !options.empty())
      throw Error("none pruner options", options.begin().key(), "unknown option (it takes none)");
    return std::make_unique<NoPruner>();
  }
  throw Error("pruner", "", "unknown pruner \"" + name + "\" (expected median, asha or none)");
}

}  // namespace graphcost::study
