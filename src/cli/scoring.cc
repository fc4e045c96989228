#include "cli/scoring.h"

#include "cli/commands.h"
#include "cli/option_flags.h"

namespace graphcost::cli {

namespace {

// A CLI11 check of one value as it is parsed: the row's check on the defaults with that value
// ("--slate-size: must be at least 1, got 0").
template <typename T>
CLI::Validator checked_as_parsed(const OptionField<infer::ScoringOptions>& field,
                                 T infer::ScoringOptions::*member,
                                 const infer::ScoringOptions& defaults) {
  const OptionCheck<infer::ScoringOptions> check = field.check;
  return CLI::Validator(
      [check, member, defaults](std::string& input) {
        T value{};
        // A text that is not a T is the option's own conversion error.
        if (!CLI::detail::lexical_cast(input, value)) return std::string();
        infer::ScoringOptions options = defaults;
        options.*member = value;
        const std::string problem = check(options);
        return problem.empty() ? problem : problem + ", got " + input;
      },
      "");
}

}  // namespace

ScoringFlags add_scoring_options(CLI::App* cmd, std::vector<std::string>& run_dirs,
                                 infer::ScoringOptions& scoring) {
  ScoringFlags flags{};
  flags.model =
      cmd->add_option("--model", run_dirs,
                      "a training run folder (model.pt or model.xgb); repeat for an ensemble")
          ->expected(1)
          ->take_all();
  const infer::ScoringOptions defaults = scoring;
  for (const auto& field : infer::scoring_option_fields()) {
    std::visit(
        [&](const auto& member) {
          using Member = std::decay_t<decltype(member)>;
          if constexpr (!std::is_same_v<Member, OptionAccessor<infer::ScoringOptions>>) {
            CLI::Option* option = add_table_option(cmd, field, scoring.*member);
            using T = std::decay_t<decltype(scoring.*member)>;
            if constexpr (!IsVector<T>::value) {
              if (field.check != nullptr) option->check(checked_as_parsed(field, member, defaults));
            }
            if (std::string(field.key) == "mc_samples") flags.mc_samples = option;
            if (std::string(field.key) == "seed") flags.seed = option;
          }
        },
        field.member);
  }
  return flags;
}

std::string scoring_start_text(const infer::ScoringOptions& scoring, const data::DataOptions& source,
                               const nlohmann::json& command) {
  nlohmann::json j;
  write_option_fields(j, infer::scoring_option_fields(), scoring);
  j.update(
      {{"collection", source.collection}, {"split", source.split}, {"prune", source.prune_hops}});
  j.update(command);
  return j.dump();
}

}  // namespace graphcost::cli
