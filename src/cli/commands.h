// One function per subcommand: each adds its subcommand, options and callback to the app.
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace graphcost::cli {

// A CLI11 check that an integer option's text is an integer within 64 bits, signed or not:
// CLI11 alone reads "-1" into an unsigned option as 2^64 - 1 and clamps a longer number to the
// largest value. The description is empty so that --help still shows "INT=1000".
inline CLI::Validator integer_64(bool is_unsigned) {
  return CLI::Validator(
      [is_unsigned](std::string& input) -> std::string {
        errno = 0;
        char* end = nullptr;
        if (is_unsigned) {
          std::strtoull(input.c_str(), &end, 10);
        } else {
          std::strtoll(input.c_str(), &end, 10);
        }
        const bool sign = !is_unsigned || input.find('-') == std::string::npos;
        if (input.empty() || !sign || errno == ERANGE || *end != '\0') {
          return std::string("expected an integer in ") +
                 (is_unsigned ? "[0, 18446744073709551615]"
                              : "[-9223372036854775808, 9223372036854775807]") +
                 ", got " + input;
        }
        return std::string();
      },
      "");
}
inline CLI::Validator unsigned_64() { return integer_64(true); }
inline CLI::Validator signed_64() { return integer_64(false); }

// A CLI11 check that a number is at least `low`, with a plain message ("must be at least 1, got
// 0"; CLI11's PositiveNumber prints its upper bound as 309 digits).
inline CLI::Validator at_least(int64_t low) {
  return CLI::Validator(
      [low](std::string& input) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(input, value)) return "not a number: " + input;
        if (value < static_cast<double>(low))
          return "must be at least " + std::to_string(low) + ", got " + input;
        return std::string();
      },
      ">= " + std::to_string(low));
}

void add_inspect_command(CLI::App& app);
void add_split_command(CLI::App& app);
void add_ingest_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_stack_command(CLI::App& app);
void add_submit_command(CLI::App& app);
void add_score_command(CLI::App& app);
void add_noise_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_synth_command(CLI::App& app);
void add_pack_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_xgb_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_serve_command(CLI::App& app);  // serve.cc
void add_study_command(CLI::App& app);  // study.cc
// study show | export | report, under the study command (study_show.cc).
void add_study_show_commands(CLI::App* study);

}  // namespace graphcost::cli
