#include "core/progress.h"

#include <unistd.h>

#include <atomic>

namespace graphcost {

namespace {
std::atomic<bool> progress_lines_shown{true};
}  // namespace

void show_progress_lines(bool shown) { progress_lines_shown = shown; }

std::string format_duration(double seconds) {
  if (seconds < 0 || seconds != seconds) return "?";
  long s = static_cast<long>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lds", s);
  }
  return buffer;
}

ProgressOutput ProgressOutput::standard_error() {
  ProgressOutput out;
  out.stream = stderr;
  out.terminal = ::isatty(::fileno(stderr)) != 0;
  out.seconds = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  return out;
}

Progress::Progress(std::string label, int64_t total, std::string unit, ProgressOutput output)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      output_(std::move(output)),
      start_(output_.seconds()),
      last_print_(start_) {}

double Progress::elapsed_seconds() const { return output_.seconds() - start_; }

void Progress::update(int64_t done, const std::string& extra) {
  if (finished_) return;
  // The rate counts from the first report, so a resumed run's earlier steps do not inflate it.
  if (start_done_ < 0) start_done_ = done > 0 ? done - 1 : 0;
  done_ = done;
  extra_ = extra;
  if (total_ >= 0 && done >= total_) return;  // the last step's line is finish()'s
  const double now = output_.seconds();
  if (now - last_print_ < (output_.terminal ? kTerminalInterval : kLogInterval)) return;
  last_print_ = now;
  print(false);
}

void Progress::finish(const std::string& extra) {
  if (finished_) return;
  finished_ = true;
  if (!extra.empty()) extra_ = extra;
  print(true);
}

void Progress::print(bool final_line) {
  if (!progress_lines_shown) return;
  const double elapsed = elapsed_seconds();
  const int64_t counted = done_ - (start_done_ < 0 ? 0 : start_done_);
  const double rate = elapsed > 0 ? counted / elapsed : 0.0;
  char head[200];
  if (total_ < 0) {
    std::snprintf(head, sizeof head, "%s %lld %s %.2f %s/s elapsed %s", label_.c_str(),
                  static_cast<long long>(done_), unit_.c_str(), rate, unit_.c_str(),
                  format_duration(elapsed).c_str());
  } else {
    const double eta = rate > 0 ? (total_ - done_) / rate : -1;
    std::snprintf(head, sizeof head, "%s %lld/%lld %s (%.1f%%) %.2f %s/s elapsed %s%s%s",
                  label_.c_str(), static_cast<long long>(done_), static_cast<long long>(total_),
                  unit_.c_str(), total_ > 0 ? 100.0 * done_ / total_ : 100.0, rate, unit_.c_str(),
                  format_duration(elapsed).c_str(), final_line ? "" : " eta ",
                  final_line ? "" : format_duration(eta).c_str());
  }
  std::string line = head;
  if (!extra_.empty()) line += " | " + extra_;
  if (output_.terminal) {
    std::fprintf(output_.stream, "\r\033[K%s%s", line.c_str(), final_line ? "\n" : "");
  } else {
    std::fprintf(output_.stream, "%s\n", line.c_str());
  }
  std::fflush(output_.stream);
}

}  // namespace graphcost
