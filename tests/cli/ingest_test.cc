// graphcost ingest on bad input: a non-zero exit and one error line naming the file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "graphcost_binary.h"
#include "run_graphcost.h"

namespace {

namespace fs = std::filesystem;

using graphcost::testing::CommandResult;
using graphcost::testing::run_graphcost;

TEST(IngestCommand, ForeignFileFailsWithOneLine) {
  const std::string npz =
      std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/alexnet_layout_reduced.npz";
  if (!fs::exists(npz)) GTEST_SKIP() << "shared data absent: " << npz;
  const CommandResult result = run_graphcost("ingest " + npz + " --out " +
                                      (fs::temp_directory_path() / "graphcost_never").string());
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.output.rfind("graphcost: error: " + npz + ": not a TpuGraphs", 0), 0u)
      << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
}

TEST(IngestCommand, UnknownFeatureSetIsRejected) {
  const std::string pb = std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/op_tuning_data.pb";
  if (!fs::exists(pb)) GTEST_SKIP() << "shared data absent: " << pb;
  const CommandResult result = run_graphcost("ingest " + pb + " --out /tmp --features fancy");
  EXPECT_NE(result.status, 0);
  EXPECT_NE(result.output.find("fancy"), std::string::npos) << result.output;
}

TEST(IngestCommand, MissingInputIsRejected) {
  const CommandResult result = run_graphcost("ingest /nonexistent/records.pb --out /tmp");
  EXPECT_NE(result.status, 0);
  EXPECT_NE(result.output.find("/nonexistent/records.pb"), std::string::npos) << result.output;
}

}  // namespace
