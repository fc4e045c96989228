// The other-devices member: each reference device's log times standardised, averaged over the
// references that measured a configuration, never the graph's own device.
#include "stack/other_devices.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace graphcost::stack {
namespace {

// A one-node tile graph named `name` with configurations `rows` (width 2) and runtimes.
data::GraphRecord device(const std::string& name, const std::vector<std::vector<float>>& rows,
                         const std::vector<double>& runtimes) {
  data::GraphRecord r;
  r.graph.name = name;
  r.graph.num_nodes = 1;
  r.graph.feature_width = 1;
  r.graph.node_features = {1.0f};
  r.graph.opcodes = {0};
  r.graph.build_adjacency();
  r.configs.kind = data::ConfigKind::Tile;
  r.configs.count = static_cast<int64_t>(rows.size());
  r.configs.width = 2;
  for (const auto& row : rows) r.configs.tile.insert(r.configs.tile.end(), row.begin(), row.end());
  r.configs.runtimes = runtimes;
  return r;
}

// z of log times e^0, e^1, e^2 (log 0, 1, 2): -1.2247, 0, 1.2247.
const double kZ = std::sqrt(1.5);

TEST(OtherDevices, MeanOfOtherDevicesStandardisedLogTimes) {
  std::vector<data::GraphRecord> refs;
  refs.push_back(device("k_A", {{1, 1}, {2, 1}, {3, 1}}, {1, std::exp(1.0), std::exp(2.0)}));
  // Device B ranks them the other way and has not measured {3, 1}; it measured {4, 4}.
  refs.push_back(device("k_B", {{2, 1}, {1, 1}, {4, 4}}, {1, std::exp(1.0), std::exp(2.0)}));
  const data::MemoryCollection references(data::CollectionId::parse("tile:xla"), "train", std::move(refs));
  const OtherDevices other = OtherDevices::build(references);
  EXPECT_EQ(other.references(), (std::vector<std::string>{"k_A", "k_B"}));
  const data::GraphRecord target = device("k_C", {{1, 1}, {2, 1}, {3, 1}, {4, 4}, {9, 9}}, {1, 1, 1, 1, 1});
  const std::vector<double> s = other.score("k_C", target.configs.view(), {});
  ASSERT_EQ(s.size(), 5u);
  EXPECT_NEAR(s[0], (-kZ + 0) / 2, 1e-12);  // A: -z, B: 0
  EXPECT_NEAR(s[1], (0 - kZ) / 2, 1e-12);   // A: 0, B: -z
  EXPECT_NEAR(s[2], kZ, 1e-12);             // A only
  EXPECT_NEAR(s[3], kZ, 1e-12);             // B only
  EXPECT_EQ(s[4], 0.0);                     // nobody measured it
  // Device A itself is never its own other device: only B's times count.
  const std::vector<double> a = other.score("k_A", target.configs.view(), {0, 2});
  EXPECT_NEAR(a[0], 0.0, 1e-12);
  EXPECT_EQ(a[1], 0.0);
  // The saved table scores the same.
  const OtherDevices loaded =
      OtherDevices::from_json(nlohmann::json::parse(other.to_json().dump()), "other.json");
  EXPECT_EQ(loaded.score("k_C", target.configs.view(), {}), s);
}

TEST(OtherDevices, BadInputsAreErrors) {
  std::vector<data::GraphRecord> refs;
  refs.push_back(device("k_A", {{1, 1}, {2, 1}}, {1, 2}));
  const data::MemoryCollection references(data::CollectionId::parse("tile:xla"), "train", std::move(refs));
  const OtherDevices other = OtherDevices::build(references);
  data::GraphRecord wide = device("k_C", {{1, 1}}, {1});
  wide.configs.width = 1;
  wide.configs.tile = {1, 1};
  wide.configs.count = 2;
  try {
    other.score("k_C", wide.configs.view(), {});
    FAIL() << "a configuration of another width was scored";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "k_C: config_feat: 1 columns per configuration (the other "
                                     "devices' configurations have 2)");
  }
  EXPECT_THROW(OtherDevices::from_json({{"width", 2}, {"references", {"a"}}, {"rows", {{1, 2}}},
                                        {"times", {{1, 2}}}},
                                       "other.json"),
               Error);
}

}  // namespace
}  // namespace graphcost::stack
