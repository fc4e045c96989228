// graphcost submit: merge the five collections' submission files into one; graphcost report: a
// run's HTML report. Neither needs LibTorch (graphcost_cli_base).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "eval/report.h"
#include "eval/submission.h"
#include "run/run_folder.h"

namespace graphcost::cli {

namespace {

struct SubmitOptions {
  std::vector<std::string> inputs;
  std::string out;
};

}  // namespace

void add_submit_command(CLI::App& app) {
  auto o = std::make_shared<SubmitOptions>();
  CLI::App* cmd = app.add_subcommand("submit", "Merge several collections' submission files into one");
  cmd->add_option("inputs", o->inputs, "submission CSV files from predict")->required();
  cmd->add_option("--out", o->out, "merged submission CSV")->required();
  cmd->callback([o] {
    eval::merge_submissions(o->inputs, o->out);
    std::printf("wrote %s from %zu files\n", o->out.c_str(), o->inputs.size());
  });
}

void add_report_command(CLI::App& app) {
  auto run_dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("report", "Write RUN_DIR/report.html: curves, predicted vs measured, options");
  cmd->add_option("run_dir", *run_dir, "a training run folder")->required();
  cmd->callback([run_dir] {
    eval::write_report(*run_dir);
    std::printf("report: %s\n", run::RunFolder(*run_dir).report_path().c_str());
  });
}

}  // namespace graphcost::cli
