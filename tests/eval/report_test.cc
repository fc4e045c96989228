#include "eval/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"
#include "eval/svg_plot.h"
#include "temp_dir.h"

namespace graphcost::eval {
namespace {

size_t count_of(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(Report, WritesSelfContainedHtmlWithPlots) {
  const std::string dir = fresh_temp_dir();
  write_file_atomically(dir + "/metrics.jsonl",
                        "{\"iteration\": 10, \"loss\": 0.9, \"configs_per_s\": 1000}\n"
                        "{\"iteration\": 20, \"loss\": 0.7, \"configs_per_s\": 1100, "
                        "\"kendall_tau\": 0.4, \"opa\": 0.7, \"split\": \"valid\"}\n"
                        "\n"
                        "{\"iteration\": 30, \"loss\": 0.6, \"configs_per_s\": 1050, "
                        "\"learning_rate\": 0.001, \"best\": true}\n");
  write_file_atomically(
      dir + "/valid_predictions.jsonl",
      "{\"graph\": \"g<1>\", \"predicted\": [1, 2, 3], \"measured\": [3, 4, 5]}\n");
  write_file_atomically(dir + "/config.json", "{\"model\": \"sage & co\"}\n");
  write_report(dir);
  const std::string html = read_file(dir + "/report.html");
  // loss, configs_per_s, kendall_tau, opa, learning_rate, one scatter.
  EXPECT_EQ(count_of(html, "<svg"), 6u);
  EXPECT_NE(html.find("loss vs iteration"), std::string::npos);
  EXPECT_NE(html.find("kendall_tau vs iteration"), std::string::npos);
  EXPECT_NE(html.find("g&lt;1&gt; (3 configs, tau 1.000)"), std::string::npos);
  EXPECT_NE(html.find("<pre>{&quot;model&quot;: &quot;sage &amp; co&quot;}"), std::string::npos);
  EXPECT_EQ(html.find("split vs"), std::string::npos);  // strings are not curves
  EXPECT_EQ(html.find("best vs"), std::string::npos);   // nor booleans
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.rfind("</html>\n"), html.size() - 8);
}

TEST(Report, OptionalFilesMayBeAbsent) {
  const std::string dir = fresh_temp_dir();
  write_file_atomically(dir + "/metrics.jsonl", "{\"iteration\": 1, \"loss\": 2}\n");
  const std::string html = render_report(dir);
  EXPECT_EQ(count_of(html, "<svg"), 1u);
  EXPECT_EQ(html.find("<pre>"), std::string::npos);
}

TEST(Report, MalformedLineIsAnErrorNamingFileAndLine) {
  const std::string dir = fresh_temp_dir();
  write_file_atomically(dir + "/metrics.jsonl",
                        "{\"iteration\": 1, \"loss\": 2}\n{\"iteration\": 2,\n");
  try {
    write_report(dir);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/metrics.jsonl: line 2"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.html"));
}

TEST(Report, OtherBadMetricsFilesAreErrors) {
  const std::string dir = fresh_temp_dir();
  EXPECT_THROW(write_report(dir), Error);  // missing
  write_file_atomically(dir + "/metrics.jsonl", "");
  EXPECT_THROW(write_report(dir), Error);  // no records
  write_file_atomically(dir + "/metrics.jsonl", "{\"loss\": 2}\n");
  EXPECT_THROW(write_report(dir), Error);  // no iteration
  write_file_atomically(dir + "/metrics.jsonl", "[1, 2]\n");
  EXPECT_THROW(write_report(dir), Error);  // not an object
}

TEST(Report, MalformedPredictionsAreErrors) {
  const std::string dir = fresh_temp_dir();
  write_file_atomically(dir + "/metrics.jsonl", "{\"iteration\": 1, \"loss\": 2}\n");
  write_file_atomically(dir + "/valid_predictions.jsonl",
                        "{\"graph\": \"g\", \"predicted\": [1, 2], \"measured\": [3]}\n");
  EXPECT_THROW(write_report(dir), Error);
}

TEST(SvgPlot, NiceAxisUsesRoundSteps) {
  Axis axis = nice_axis(0.0, 0.95, 5);
  EXPECT_DOUBLE_EQ(axis.lo, 0.0);
  EXPECT_DOUBLE_EQ(axis.hi, 1.0);
  ASSERT_EQ(axis.ticks.size(), 6u);
  EXPECT_DOUBLE_EQ(axis.ticks[1], 0.2);
  Axis flat = nice_axis(3.0, 3.0, 5);  // a constant series still gets a range
  EXPECT_LT(flat.lo, 3.0);
  EXPECT_GT(flat.hi, 3.0);
  EXPECT_EQ(format_tick(10000.0), "10000");
  EXPECT_EQ(format_tick(0.25), "0.25");
}

TEST(SvgPlot, LinePlotHasAxesPolylineAndDots) {
  const std::string svg = svg_line_plot({"t", "x", "y"}, {0, 1, 2}, {0, 1, NAN});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count_of(svg, "<polyline"), 1u);
  EXPECT_EQ(count_of(svg, "<circle"), 2u);                // the NaN point is left out
  EXPECT_NE(svg.find(">0.4</text>"), std::string::npos);  // x and y span [0, 1]
}

}  // namespace
}  // namespace graphcost::eval
