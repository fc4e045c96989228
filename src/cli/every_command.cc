// The list of graphcost's commands: main.cc runs it, and so does the tests' fork server
// (tests/cli/zygote_main.cc), which must run every command as graphcost does.
#include "cli/commands.h"
#include "cli/options_reference.h"
#include "cli/program.h"

namespace graphcost::cli {

const std::vector<AddCommand>& every_command() {
  static const std::vector<AddCommand> commands = {
      add_synth_command, add_inspect_command, add_pack_command, add_split_command,
      add_ingest_command, add_train_command, add_sweep_command, add_study_command,
      add_xgb_command, add_stack_command,
      add_eval_command, add_predict_command, add_submit_command, add_score_command,
      add_noise_command, add_report_command, add_tune_command, add_serve_command,
      // hidden, and last: it lists the commands above
      add_options_reference_command};
  return commands;
}

}  // namespace graphcost::cli
