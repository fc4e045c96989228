#include "train/interrupt.h"

#include <atomic>
#include <csignal>

namespace graphcost::train {

namespace {

std::atomic<bool> stop_flag{false};

extern "C" void on_interrupt(int signal) {
  stop_flag = true;
  std::signal(signal, SIG_DFL);  // a second one ends the process at once
}

}  // namespace

// SIGTERM too: job schedulers and `kill` send it before SIGKILL, and a run should checkpoint then.
void install_interrupt_handler() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}
void request_stop() { stop_flag = true; }
bool stop_requested() { return stop_flag; }
void clear_stop_request() { stop_flag = false; }

}  // namespace graphcost::train
