// graphcost: learned cost models that rank compiler configurations.
#include <malloc.h>

#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "core/error.h"

int main(int argc, char** argv) {
  // Keep freed tensor memory in the process: by default glibc returns every large block to the
  // kernel and a training step faults it back in, zeroed, on the next iteration.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
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
  graphcost::cli::add_xgb_command(app);
  graphcost::cli::add_eval_command(app);
  graphcost::cli::add_predict_command(app);
  graphcost::cli::add_submit_command(app);
  graphcost::cli::add_score_command(app);
  graphcost::cli::add_noise_command(app);
  graphcost::cli::add_report_command(app);
  graphcost::cli::add_tune_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const graphcost::Error& e) {
    std::fprintf(stderr, "graphcost: error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "graphcost: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graphcost: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
