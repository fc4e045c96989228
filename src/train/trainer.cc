#include "train/trainer.h"

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

TrainResult train(const TrainOptions& options, const data::Collection& train_set,
                  const data::Collection* valid_set, const std::string& run_dir, bool resume,
                  dist::Group* group, const IterationObserver& observer) {
  SessionRequest request;
  request.run_dir = run_dir;
  request.resume = resume;
  request.reuse_folder = true;
  request.collection_given = true;
  request.apply_given = [&](TrainOptions& given) {
    if (resume) {
      apply_resume_changes(options, given);
    } else {
      given = options;
    }
  };
  Session session(request, train_set, valid_set, group);
  return train(session, observer);
}

}  // namespace graphcost::train
