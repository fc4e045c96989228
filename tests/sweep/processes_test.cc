// Child processes N at a time, with /bin/sh children: exit statuses, logs, environment, order.
#include "sweep/processes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../io/temp_dir.h"
#include "core/atomic_file.h"

namespace graphcost::sweep {
namespace {

namespace fs = std::filesystem;

class SweepProcesses : public ::testing::Test {
 protected:
  // Child i: appends "i VALUE" to a shared file and its log, then exits with status i % 2.
  ChildCommand child(int64_t i) const {
    ChildCommand c;
    const std::string index = std::to_string(i);
    c.args = {"/bin/sh",
              "-c",
              "echo \"$0 $GRAPHCOST_TEST_VALUE\" >> \"$1\"; echo \"log of $0\"; exit $2",
              index,
              (dir_ / "shared.txt").string(),
              std::to_string(i % 2)};
    c.log = (dir_ / (index + ".log")).string();
    c.environment["GRAPHCOST_TEST_VALUE"] = "v" + index;
    return c;
  }

  TempDir temp_;
  fs::path dir_ = temp_.path();
};

TEST_F(SweepProcesses, OneJobRunsTheChildrenInOrder) {
  std::vector<int64_t> started, ended;
  std::vector<bool> succeeded;
  run_children(
      4, 1,
      [&](int64_t i) {
        started.push_back(i);
        return child(i);
      },
      [&](int64_t i, const ChildExit& exit) {
        ended.push_back(i);
        succeeded.push_back(exit.succeeded);
        EXPECT_GE(exit.seconds, 0.0);
      });
  EXPECT_EQ(started, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(ended, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(succeeded, (std::vector<bool>{true, false, true, false}));
  // Each child saw its own environment; its output went to its log, appended.
  EXPECT_EQ(read_file((dir_ / "shared.txt").string()), "0 v0\n1 v1\n2 v2\n3 v3\n");
  EXPECT_EQ(read_file((dir_ / "2.log").string()), "log of 2\n");
  run_children(
      1, 1, [&](int64_t) { return child(2); }, [](int64_t, const ChildExit&) {});
  EXPECT_EQ(read_file((dir_ / "2.log").string()), "log of 2\nlog of 2\n");
}

TEST_F(SweepProcesses, SeveralJobsFinishEveryChildOnce) {
  std::vector<int64_t> ended;
  int64_t failed = 0;
  run_children(
      5, 3, [&](int64_t i) { return child(i); },
      [&](int64_t i, const ChildExit& exit) {
        ended.push_back(i);
        if (!exit.succeeded) ++failed;
      });
  std::sort(ended.begin(), ended.end());
  EXPECT_EQ(ended, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(failed, 2);  // children 1 and 3
}

TEST_F(SweepProcesses, AProgramThatCannotRunFails) {
  std::vector<bool> succeeded;
  run_children(
      1, 1,
      [&](int64_t) {
        ChildCommand c;
        c.args = {(dir_ / "no-such-program").string()};
        c.log = (dir_ / "missing.log").string();
        return c;
      },
      [&](int64_t, const ChildExit& exit) { succeeded.push_back(exit.succeeded); });
  EXPECT_EQ(succeeded, (std::vector<bool>{false}));
}

}  // namespace
}  // namespace graphcost::sweep
