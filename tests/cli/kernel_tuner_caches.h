// Small Kernel Tuner caches of one kernel on named devices, for the tests that train on some
// devices and score another (tests/cli, tests/serve): "block" in {16, ..., 256}, "unroll" in
// {1, 2, 4}, a time that depends on both and on the device's speed, problem size 4096.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "core/atomic_file.h"

namespace graphcost::testing {

// Writes the cache of kernel "toy" measured on `device` (written as its device_name, "" allowed)
// at path; speed scales every time, bend moves the best block size, so devices rank differently.
inline void write_device_cache(const std::string& path, const std::string& device, double speed,
                               double bend) {
  nlohmann::json cache = nlohmann::json::object();
  for (int block : {16, 32, 64, 128, 256}) {
    for (int unroll : {1, 2, 4}) {
      const double time =
          speed * (1.0 + std::abs(std::log2(block) - bend) + 0.25 * std::log2(unroll) * (block > 64));
      cache[std::to_string(block) + "," + std::to_string(unroll)] = {
          {"block", block}, {"unroll", unroll}, {"time", time}};
    }
  }
  write_file_atomically(path, nlohmann::json{{"kernel_name", "toy"},
                                             {"device_name", device},
                                             {"problem_size", {4096}},
                                             {"tune_params_keys", {"block", "unroll"}},
                                             {"objective", "time"},
                                             {"cache", cache}}
                                  .dump());
}

}  // namespace graphcost::testing
