#include "infer/scoring_options.h"

namespace graphcost::infer {

namespace {

using S = ScoringOptions;

std::string at_least(int64_t value, int64_t low) {
  return value >= low ? "" : "must be at least " + std::to_string(low);
}

const OptionField<S> kFields[] = {
    {"ensemble", "--ensemble", &S::ensemble,
     "how an ensemble's scores are combined: mean (of per-graph standardised scores) or rank "
     "(mean reciprocal rank)",
     nullptr, false, "mean,rank"},
    {"mc_samples", "--mc-samples", &S::mc_samples,
     "score by the mean of K Monte Carlo dropout passes (0 = off)",
     [](const S& o) { return at_least(o.mc_samples, 0); }},
    {"seed", "--seed", &S::seed,
     "seed of the anchor sample, the --tta groupings and the MC-dropout masks"},
    {"slate_size", "--slate-size", &S::slate_size, "configurations scored per forward pass",
     [](const S& o) { return at_least(o.slate_size, 1); }},
    {"tta", "--tta", &S::tta,
     "average each score over this many seeded random slate groupings (0 = off)",
     [](const S& o) { return at_least(o.tta, 0); }},
    {"anchors", "--anchors", &S::anchors,
     "attention models: score every configuration in its own slate with the same K anchor "
     "configurations (a seeded sample of the scored ones), so scores compare across slates; "
     "deterministic, one pass. Default: the run's training slate size - 1 unless --tta or "
     "--mc-samples is given; 0 = off (slates of --slate-size)",
     [](const S& o) {
       return o.anchors >= kAutoAnchors && o.anchors <= kMaxAnchors
                  ? std::string()
                  : "must be in [0, " + std::to_string(kMaxAnchors) +
                        "], or -1 for the run's training slate size - 1";
     }},
};

}  // namespace

OptionTable<ScoringOptions> scoring_option_fields() { return kFields; }

data::DataOptions run_scoring_data_options(const std::string& split) {
  data::DataOptions options = data::command_data_options(split);
  options.prune_hops = kRunPruning;
  return options;
}

void check_scoring_options(const ScoringOptions& options, const std::string& where) {
  check_option_fields(scoring_option_fields(), options, where);
}

}  // namespace graphcost::infer
