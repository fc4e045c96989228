#include "cli/scoring.h"

#include "cli/commands.h"

namespace graphcost::cli {

CLI::Option* add_run_options(CLI::App* cmd, std::vector<std::string>& run_dirs,
                             std::string& ensemble, int64_t& tta, int64_t& anchors) {
  CLI::Option* model =
      cmd->add_option("--model", run_dirs,
                      "a training run folder (model.pt or model.xgb); repeat for an ensemble")
          ->expected(1)
          ->take_all();
  cmd->add_option("--ensemble", ensemble,
                  "how an ensemble's scores are combined: mean (of per-graph standardised "
                  "scores) or rank (mean reciprocal rank)")
      ->check(CLI::IsMember({"mean", "rank"}))
      ->capture_default_str();
  cmd->add_option("--tta", tta,
                  "average each score over this many seeded random slate groupings (0 = off)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--anchors", anchors,
                  "attention models: score every configuration in its own slate with the same K "
                  "anchor configurations (a seeded sample of the scored ones), so scores compare "
                  "across slates; deterministic, one pass. Default: the run's training slate "
                  "size - 1 unless --tta or --mc-samples is given; 0 = off (slates of "
                  "--slate-size)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  return model;
}

}  // namespace graphcost::cli
