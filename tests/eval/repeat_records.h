// The records the tests of repeated measurements work by hand (repeats_test, noise_test).
#pragma once

#include "data/configs.h"

namespace graphcost::eval {

// One configurable node of width 1, so each record's configuration is one value:
//   record   0  1  2  3  4  5  6  7  8  9 10 11
//   config   0  1  0  2  1  0  2  3  2  4  4  4
//   runtime 10 20 12 30 18 11 33 40 15 99 50 52   (record 6 and 9 failed)
inline data::ConfigTable repeat_records() {
  data::ConfigTable t;
  t.kind = data::ConfigKind::Layout;
  t.count = 12;
  t.nodes = 1;
  t.width = 1;
  t.layout = {0, 1, 0, 2, 1, 0, 2, 3, 2, 4, 4, 4};
  t.runtimes = {10, 20, 12, 30, 18, 11, 33, 40, 15, 99, 50, 52};
  t.failed = {0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0};
  return t;
}

}  // namespace graphcost::eval
