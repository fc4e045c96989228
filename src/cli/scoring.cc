#include "cli/scoring.h"

#include "cli/commands.h"

namespace graphcost::cli {

ScoringFlags add_scoring_options(CLI::App* cmd, std::vector<std::string>& run_dirs,
                                 infer::ScoringOptions& scoring) {
  ScoringFlags flags{};
  flags.model =
      cmd->add_option("--model", run_dirs,
                      "a training run folder (model.pt or model.xgb); repeat for an ensemble")
          ->expected(1)
          ->take_all();
  cmd->add_option("--ensemble", scoring.ensemble,
                  "how an ensemble's scores are combined: mean (of per-graph standardised "
                  "scores) or rank (mean reciprocal rank)")
      ->check(CLI::IsMember({"mean", "rank"}))
      ->capture_default_str();
  flags.mc_samples =
      cmd->add_option("--mc-samples", scoring.mc_samples,
                      "score by the mean of K Monte Carlo dropout passes (0 = off)")
          ->check(at_least(0))
          ->capture_default_str();
  flags.seed = cmd->add_option("--seed", scoring.seed,
                               "seed of the anchor sample, the --tta groupings and the MC-dropout "
                               "masks")
                   ->check(unsigned_64())
                   ->capture_default_str();
  cmd->add_option("--slate-size", scoring.slate_size, "configurations scored per forward pass")
      ->check(at_least(1))
      ->capture_default_str();
  cmd->add_option("--tta", scoring.tta,
                  "average each score over this many seeded random slate groupings (0 = off)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--anchors", scoring.anchors,
                  "attention models: score every configuration in its own slate with the same K "
                  "anchor configurations (a seeded sample of the scored ones), so scores compare "
                  "across slates; deterministic, one pass. Default: the run's training slate "
                  "size - 1 unless --tta or --mc-samples is given; 0 = off (slates of "
                  "--slate-size)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  return flags;
}

std::string scoring_start_text(const infer::ScoringOptions& scoring, const data::DataOptions& source,
                               const nlohmann::json& command) {
  nlohmann::json j{{"ensemble", scoring.ensemble}, {"mc_samples", scoring.mc_samples},
                   {"seed", scoring.seed},         {"slate_size", scoring.slate_size},
                   {"tta", scoring.tta},           {"anchors", scoring.anchors},
                   {"collection", source.collection}, {"split", source.split},
                   {"prune", source.prune_hops}};
  j.update(command);
  return j.dump();
}

}  // namespace graphcost::cli
