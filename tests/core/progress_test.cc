// The progress line's exact output, on a clock the test moves: one final line, the totals, and
// at most one line per interval (kLogInterval in a log, kTerminalInterval on a terminal).
#include "core/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace graphcost {
namespace {

// A Progress writing to a temporary file on a clock set by the test.
class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override { file_ = std::tmpfile(); }
  void TearDown() override { std::fclose(file_); }

  ProgressOutput output(bool terminal) {
    ProgressOutput out;
    out.stream = file_;
    out.terminal = terminal;
    out.seconds = [this] { return now_; };
    return out;
  }

  std::string written() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, file_)) text.append(buffer, n);
    return text;
  }

  std::FILE* file_ = nullptr;
  double now_ = 100.0;
};

TEST_F(ProgressTest, LogGetsOneFinalLineWithTheLastExtra) {
  Progress progress("score", 8, "graphs", output(false));
  for (int g = 1; g <= 8; ++g) {
    now_ += 0.5;  // 4 s in all: less than the interval, so no line before the final one
    progress.update(g, std::to_string(163 * g) + " configs");
  }
  progress.finish();
  progress.finish();  // a second finish prints nothing
  EXPECT_EQ(written(), "score 8/8 graphs (100.0%) 2.00 graphs/s elapsed 4s | 1304 configs\n");
}

TEST_F(ProgressTest, FinishExtraReplacesTheLastUpdates) {
  Progress progress("score", 2, "graphs", output(false));
  now_ += 1;
  progress.update(1, "10 configs");
  now_ += 1;
  progress.update(2, "20 configs");
  progress.finish("20 configs, 2 graphs");
  EXPECT_EQ(written(), "score 2/2 graphs (100.0%) 1.00 graphs/s elapsed 2s | 20 configs, 2 graphs\n");
}

TEST_F(ProgressTest, LogPrintsAtMostOneLinePerInterval) {
  ASSERT_EQ(Progress::kLogInterval, 5.0);
  Progress progress("train", 20, "it", output(false));
  for (int i = 1; i <= 20; ++i) {
    now_ += 1;
    progress.update(i);
  }
  progress.finish();
  // The first report sets where the rate counts from (step 0 here): 5 steps in 5 s, ...
  EXPECT_EQ(written(),
            "train 5/20 it (25.0%) 1.00 it/s elapsed 5s eta 15s\n"
            "train 10/20 it (50.0%) 1.00 it/s elapsed 10s eta 10s\n"
            "train 15/20 it (75.0%) 1.00 it/s elapsed 15s eta 5s\n"
            "train 20/20 it (100.0%) 1.00 it/s elapsed 20s\n");
}

TEST_F(ProgressTest, ResumedCountsTheRateFromTheFirstReport) {
  Progress progress("train", 100, "it", output(false));
  now_ += 6;
  progress.update(51);  // resumed at 50: one step in 6 s
  now_ += 6;
  progress.update(52);
  progress.finish();
  EXPECT_EQ(written(),
            "train 51/100 it (51.0%) 0.17 it/s elapsed 6s eta 4m54s\n"
            "train 52/100 it (52.0%) 0.17 it/s elapsed 12s eta 4m48s\n"
            "train 52/100 it (52.0%) 0.17 it/s elapsed 12s\n");
}

TEST_F(ProgressTest, AnInterruptedRunEndsAtItsLastCount) {
  Progress progress("tune bo", 200, "measurements", output(false));
  now_ += 2;
  progress.update(40);  // the first report counts as one step done
  progress.finish();
  EXPECT_EQ(written(), "tune bo 40/200 measurements (20.0%) 0.50 measurements/s elapsed 2s\n");
}

TEST_F(ProgressTest, UnknownTotalShowsTheCountOnly) {
  Progress progress("pack", -1, "graphs", output(false));
  now_ += 1;
  progress.update(1, "a");
  now_ += 1;
  progress.update(2, "b");
  progress.finish();
  EXPECT_EQ(written(), "pack 2 graphs 1.00 graphs/s elapsed 2s | b\n");
}

TEST_F(ProgressTest, NothingToDo) {
  Progress progress("pack", 0, "graphs", output(false));
  progress.finish();
  EXPECT_EQ(written(), "pack 0/0 graphs (100.0%) 0.00 graphs/s elapsed 0s\n");
}

TEST_F(ProgressTest, TerminalRedrawsInPlaceAndEndsTheLine) {
  ASSERT_EQ(Progress::kTerminalInterval, 0.25);
  Progress progress("synth", 3, "files", output(true));
  now_ += 0.1;
  progress.update(1, "a.npz");  // within the interval: not drawn
  now_ += 0.9;
  progress.update(2, "b.npz");
  now_ += 1;
  progress.update(3, "c.npz");  // the last step: finish() draws it
  progress.finish();
  EXPECT_EQ(written(),
            "\r\033[Ksynth 2/3 files (66.7%) 2.00 files/s elapsed 1s eta 1s | b.npz"
            "\r\033[Ksynth 3/3 files (100.0%) 1.50 files/s elapsed 2s | c.npz\n");
}

TEST_F(ProgressTest, UpdatesAfterFinishAndHiddenLinesPrintNothing) {
  Progress progress("pack", 2, "graphs", output(false));
  progress.finish();
  now_ += 10;
  progress.update(2);
  show_progress_lines(false);
  Progress hidden("pack", 2, "graphs", output(false));
  now_ += 10;
  hidden.update(1);
  hidden.finish();
  show_progress_lines(true);
  EXPECT_EQ(written(), "pack 0/2 graphs (0.0%) 0.00 graphs/s elapsed 0s\n");
}

TEST(FormatDuration, Examples) {
  EXPECT_EQ(format_duration(12.4), "12s");
  EXPECT_EQ(format_duration(185), "3m05s");
  EXPECT_EQ(format_duration(3720), "1h02m");
  EXPECT_EQ(format_duration(-1), "?");
}

}  // namespace
}  // namespace graphcost
