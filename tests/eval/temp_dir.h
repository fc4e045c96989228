// A fresh temporary folder per test, for tests that write files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace graphcost::eval {

inline std::string fresh_temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir =
      std::filesystem::temp_directory_path() / ("graphcost_eval_" + std::to_string(::getpid()) +
                                                "_" + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace graphcost::eval
