// Expects a call to throw graphcost::Error with every fragment in its message: the check the io
// tests share (one definition, so that test files compiled in one batch do not define it twice).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace graphcost::io::testing {

template <typename F>
void expect_error(F f, const std::vector<std::string>& fragments) {
  try {
    f();
    FAIL() << "no error";
  } catch (const Error& e) {
    for (const std::string& s : fragments) {
      EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what();
    }
  }
}

}  // namespace graphcost::io::testing
