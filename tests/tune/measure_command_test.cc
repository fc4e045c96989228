#include "tune/measure_command.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "test_space.h"

namespace graphcost::tune {
namespace {

TEST(MeasureCommand, SubstitutesNamesAndParams) {
  const std::vector<std::string> names = {"block_x", "tile"};
  const std::vector<std::string> values = {"32", "4"};
  EXPECT_EQ(substitute_command("./run {params}", names, values), "./run block_x=32 tile=4");
  EXPECT_EQ(substitute_command("./run -b {block_x} -t{tile} {block_x}", names, values),
            "./run -b 32 -t4 32");
  EXPECT_EQ(substitute_command("echo 1", names, values), "echo 1");
  EXPECT_THROW(substitute_command("./run {block}", names, values), Error);
  EXPECT_THROW(substitute_command("./run {tile", names, values), Error);
  try {
    substitute_command("./run {nope}", names, values);
    FAIL() << "an unknown name was substituted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("block_x, tile"), std::string::npos) << e.what();
  }
}

TEST(MeasureCommand, LastNumber) {
  EXPECT_EQ(last_number("time: 1.5 ms\n"), 1.5);
  EXPECT_EQ(last_number("3 runs, mean 2.25e-3\n"), 2.25e-3);
  EXPECT_EQ(last_number("x=4 took 7ms"), 7.0);
  EXPECT_EQ(last_number("-0.5"), -0.5);
  EXPECT_EQ(last_number(".5s"), 0.5);
  EXPECT_EQ(last_number("sm_80 v2"), std::nullopt);  // digits inside words are not numbers
  EXPECT_EQ(last_number(""), std::nullopt);
  EXPECT_EQ(last_number("nan inf"), std::nullopt);
}

TEST(MeasureCommand, RunsTheShellAndReadsTheTime) {
  const data::GraphRecord r = testing::small_tune_record();
  const SearchSpace s = make_search_space("toy", r.configs.view(), testing::small_tune_layout());
  // Prints "t = <x><y>" (e.g. "t = 41"), fails (exit 1) when x = 2, prints no number when y = 2.
  CommandMeasurer m(s, "test {x} -ne 2 || exit 1; if [ {y} = 2 ]; then echo none; else echo t = {x}{y}; fi");
  EXPECT_EQ(m.command_for(7).substr(0, 14), "test 4 -ne 2 |");
  const Measurement ok = m.measure(7);  // x = 4, y = 1
  EXPECT_FALSE(ok.failed);
  EXPECT_DOUBLE_EQ(ok.time, 41.0);
  EXPECT_TRUE(m.measure(3).failed);  // x = 2: non-zero exit
  EXPECT_TRUE(m.measure(8).failed);  // y = 2: no number
  EXPECT_TRUE(CommandMeasurer(s, "echo 0").measure(0).failed);  // zero is no time
  EXPECT_THROW(CommandMeasurer(s, "echo {z}"), Error);
  EXPECT_THROW(CommandMeasurer(s, ""), Error);
}

}  // namespace
}  // namespace graphcost::tune
