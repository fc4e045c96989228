// A one-line progress display for long work: done/total, rate, ETA and free-form fields,
// redrawn in place on a terminal (at most four times a second) and printed as plain lines at most
// every five seconds when stderr is not a terminal (a log). finish() prints the last line once.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace graphcost {

// Where a Progress writes and how it tells time; the defaults are stderr (a terminal when
// isatty says so) and the steady clock. Tests give a file and a clock of their own.
struct ProgressOutput {
  std::FILE* stream = stderr;
  bool terminal = false;
  std::function<double()> seconds;  // a monotonic clock in seconds

  static ProgressOutput standard_error();
};

class Progress {
 public:
  // Seconds between two lines: on a terminal, and in a log.
  static constexpr double kTerminalInterval = 0.25;
  static constexpr double kLogInterval = 5.0;

  // label: what is counted ("train", "pack"); total: how many steps (negative when not known
  // beforehand: the line then shows the count without a share or an ETA); unit: what one step
  // is ("it", "graphs").
  Progress(std::string label, int64_t total, std::string unit,
           ProgressOutput output = ProgressOutput::standard_error());
  // Reports that `done` steps are complete; `extra` is appended to the line (e.g. "loss 0.12").
  // Prints only when the interval has passed since the last line, and never for the last step
  // (done >= total): that line is finish()'s.
  void update(int64_t done, const std::string& extra = "");
  // Prints the final line (the last count reported, and `extra`, or else the last update's extra)
  // and ends it; later calls, and updates after it, print nothing.
  void finish(const std::string& extra = "");
  double elapsed_seconds() const;

 private:
  void print(bool final_line);

  std::string label_;
  int64_t total_;
  std::string unit_;
  ProgressOutput output_;
  int64_t start_done_ = -1;
  int64_t done_ = 0;
  std::string extra_;
  double start_;
  double last_print_;
  bool finished_ = false;
};

// Turns every progress line of this process off or back on (the ranks other than 0 of a
// distributed run stay quiet: rank 0's line speaks for all of them).
void show_progress_lines(bool shown);

// Formats seconds as "1h02m", "3m05s" or "12s".
std::string format_duration(double seconds);

}  // namespace graphcost
