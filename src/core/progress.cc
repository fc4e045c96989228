#include "core/progress.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

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

Progress::Progress(std::string label, int64_t total, std::string unit)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_),
      tty_(::isatty(::fileno(stderr)) != 0) {}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::update(int64_t done, const std::string& extra) {
  if (start_done_ < 0) start_done_ = done > 0 ? done - 1 : 0;
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_print_).count();
  // Terminals get a lively line; logs get one line every 10 s.
  if (since < (tty_ ? 0.25 : 10.0) && done < total_) return;
  last_print_ = now;
  print(done, extra, false);
}

void Progress::finish(const std::string& extra) { print(total_, extra, true); }

void Progress::print(int64_t done, const std::string& extra, bool final_line) {
  if (!progress_lines_shown) return;
  double elapsed = elapsed_seconds();
  int64_t counted = done - (start_done_ < 0 ? 0 : start_done_);
  double rate = elapsed > 0 ? counted / elapsed : 0.0;
  double eta = rate > 0 ? (total_ - done) / rate : -1;
  char head[160];
  std::snprintf(head, sizeof head, "%s %lld/%lld %s (%.1f%%) %.2f %s/s elapsed %s eta %s",
                label_.c_str(), static_cast<long long>(done), static_cast<long long>(total_),
                unit_.c_str(), total_ > 0 ? 100.0 * done / total_ : 100.0, rate, unit_.c_str(),
                format_duration(elapsed).c_str(), final_line ? "0s" : format_duration(eta).c_str());
  std::string line = head;
  if (!extra.empty()) line += " | " + extra;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final_line ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

}  // namespace graphcost
