// One function per subcommand: each adds its subcommand, options and callback to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace graphcost::cli {

void add_inspect_command(CLI::App& app);
void add_split_command(CLI::App& app);
void add_ingest_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_predict_command(CLI::App& app);
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

}  // namespace graphcost::cli
