// A one-line progress display for long work: done/total, rate, ETA and free-form fields,
// redrawn in place on a terminal (at most a few times a second) and printed as plain lines
// at a lower rate when stderr is not a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace graphcost {

class Progress {
 public:
  // label: what is counted ("train", "pack"); unit: what one step is ("it", "graphs").
  Progress(std::string label, int64_t total, std::string unit);
  // Reports that `done` steps are complete; `extra` is appended to the line (e.g. "loss 0.12").
  void update(int64_t done, const std::string& extra = "");
  // Prints the final line and a newline.
  void finish(const std::string& extra = "");
  double elapsed_seconds() const;

 private:
  void print(int64_t done, const std::string& extra, bool final_line);

  std::string label_;
  int64_t total_;
  std::string unit_;
  int64_t start_done_ = -1;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
  bool tty_;
};

// Turns every progress line of this process off or back on (the ranks other than 0 of a
// distributed run stay quiet: rank 0's line speaks for all of them).
void show_progress_lines(bool shown);

// Formats seconds as "1h02m", "3m05s" or "12s".
std::string format_duration(double seconds);

}  // namespace graphcost
