// graphcost: learned cost models that rank compiler configurations.
#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "cli/commands.h"
#include "core/error.h"

namespace {

// The first line of an exception's text: LibTorch's errors append a C++ stack trace.
std::string first_line(const char* text) {
  const char* end = std::strchr(text, '\n');
  return end == nullptr ? std::string(text) : std::string(text, end);
}

// "graphcost train" for the deepest subcommand the command line selected.
std::string command_path(const CLI::App* app) {
  std::string path = "graphcost";
  for (std::vector<CLI::App*> chosen = app->get_subcommands(); !chosen.empty();
       chosen = chosen.front()->get_subcommands())
    path += " " + chosen.front()->get_name();
  return path;
}

// An unknown command word where a subcommand is required (graphcost frobnicate, graphcost xgb
// bogus) is named as such instead of CLI11's "A subcommand is required". Empty when fine.
std::string unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path = "graphcost";
  for (int i = 1; i < argc; ++i) {
    const std::vector<CLI::App*> subcommands = at->get_subcommands([](CLI::App*) { return true; });
    if (subcommands.empty() || argv[i][0] == '-') return "";
    CLI::App* next = nullptr;
    std::string valid;
    for (CLI::App* sub : subcommands) {
      if (sub->get_name() == argv[i]) next = sub;
      valid += (valid.empty() ? "" : ", ") + sub->get_name();
    }
    if (next == nullptr)
      return path + ": unknown command '" + argv[i] + "' (valid: " + valid + ")";
    at = next;
    path += " " + next->get_name();
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  // Keep freed tensor memory in the process: by default glibc returns every large block to the
  // kernel and a training step faults it back in, zeroed, on the next iteration.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // A write past the file-size limit (ulimit -f) then fails with EFBIG, which the writers turn
  // into one error line and a clean exit, instead of SIGXFSZ killing the process silently.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"graphcost: learn how fast an ML program runs under a compiler configuration, "
               "and rank configurations"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "graphcost 0.1.0");
  graphcost::cli::add_synth_command(app);
  graphcost::cli::add_inspect_command(app);
  graphcost::cli::add_pack_command(app);
  graphcost::cli::add_split_command(app);
  graphcost::cli::add_ingest_command(app);
  graphcost::cli::add_train_command(app);
  graphcost::cli::add_sweep_command(app);
  graphcost::cli::add_study_command(app);
  graphcost::cli::add_xgb_command(app);
  graphcost::cli::add_eval_command(app);
  graphcost::cli::add_predict_command(app);
  graphcost::cli::add_submit_command(app);
  graphcost::cli::add_score_command(app);
  graphcost::cli::add_noise_command(app);
  graphcost::cli::add_report_command(app);
  graphcost::cli::add_tune_command(app);
  graphcost::cli::add_serve_command(app);
  // A bad command line is one error line, as every other error is.
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    const std::string path = command_path(failed);
    return "graphcost: error: " + path + ": " + first_line(e.what()) + " (" + path +
           " --help lists the options)\n";
  });
  if (const std::string unknown = unknown_command(app, argc, argv); !unknown.empty()) {
    std::fprintf(stderr, "graphcost: error: %s\n", unknown.c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const graphcost::Error& e) {
    std::fprintf(stderr, "graphcost: error: %s\n", first_line(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "graphcost: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graphcost: error: %s\n", first_line(e.what()).c_str());
    return 1;
  }
  return 0;
}
