// A fatal failure in a suite's SetUpTestSuite makes GoogleTest skip each of the suite's tests,
// and ctest counts a discovered test whose output says "[  SKIPPED ]" as skipped whatever its
// exit status (gtest_discover_tests' SKIP_REGULAR_EXPRESSION): a broken suite set-up would pass
// as skips. This listener ends the process with status 1 when a test of such a suite starts,
// before its skip is printed, so ctest reports the test failed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace {

class SuiteSetUpFailure : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& test) override {
    const ::testing::TestSuite* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
    if (suite == nullptr || !suite->ad_hoc_test_result().Failed()) return;
    std::fprintf(stderr, "[  FAILED  ] %s.%s: the suite's SetUpTestSuite failed (above)\n",
                 test.test_suite_name(), test.name());
    std::fflush(nullptr);
    std::_Exit(1);
  }
};

const bool kSuiteSetUpFailureInstalled = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new SuiteSetUpFailure);
  return true;
}();

}  // namespace
