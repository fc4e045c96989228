#include "data/split.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/random.h"

namespace graphcost::data {

std::pair<GraphRecord, GraphRecord> split_configs(const GraphRecord& record, double fraction,
                                                  uint64_t seed) {
  const int64_t c = record.configs.count;
  check_data(c >= 2, record.source, "", "needs at least 2 configurations to split");
  check_data(fraction > 0 && fraction < 1, record.source, "",
             "split fraction must be in (0, 1), got " + std::to_string(fraction));
  int64_t first_count = std::clamp<int64_t>(std::llround(fraction * c), 1, c - 1);
  std::vector<int64_t> order(c);
  std::iota(order.begin(), order.end(), 0);
  Random random(seed);
  random.shuffle(order);
  std::vector<int64_t> first(order.begin(), order.begin() + first_count);
  std::vector<int64_t> second(order.begin() + first_count, order.end());
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  std::pair<GraphRecord, GraphRecord> parts{record, record};
  parts.first.configs.select(first);
  parts.second.configs.select(second);
  return parts;
}

}  // namespace graphcost::data
