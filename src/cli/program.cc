// The graphcost program around its commands (program.h).
#include "cli/program.h"

#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "cli/commands.h"
#include "core/error.h"

namespace graphcost::cli {

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
      if (sub->get_group().empty()) continue;  // hidden (options-reference): not offered
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

int run_program(int argc, char** argv, const std::vector<AddCommand>& commands) {
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
  for (AddCommand add : commands) add(app);
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
  } catch (const Error& e) {
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

const std::vector<AddCommand>& torch_free_commands() {
  static const std::vector<AddCommand> commands = {
      add_synth_command,  add_inspect_command, add_pack_command,  add_split_command,
      add_ingest_command, add_xgb_command,     add_submit_command, add_score_command,
      add_noise_command,  add_report_command};
  return commands;
}

const std::vector<std::string>& torch_free_command_names() {
  static const std::vector<std::string> names = [] {
    CLI::App app;
    for (AddCommand add : torch_free_commands()) add(app);
    std::vector<std::string> words;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      words.push_back(sub->get_name());
    return words;
  }();
  return names;
}

}  // namespace graphcost::cli
