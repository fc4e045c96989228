// graphcost serve ranks a Kernel Tuner cache of a device its model never saw (#37): the request
// carries the cache's arrays as the reader makes them (the device's columns from the device
// table), and the answer is bitwise predict's for the same cache.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../cli/kernel_tuner_caches.h"
#include "../cli/run_graphcost.h"
#include "core/atomic_file.h"
#include "io/kernel_tuner.h"
#include "io/tpugraphs_npz.h"
#include "serve/request_json.h"
#include "serve_process.h"

namespace {

namespace fs = std::filesystem;
using graphcost::read_file;
using graphcost::testing::run_graphcost;
using graphcost::testing::ServeProcess;
using graphcost::testing::write_device_cache;
using nlohmann::json;

TEST(KernelTunerServe, RanksACacheOfADeviceAbsentFromTheTrainingFolderAsPredictDoes) {
  const fs::path root =
      fs::temp_directory_path() / ("graphcost_serve_kt_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "train");
  write_device_cache((root / "train" / "a100.json").string(), "NVIDIA A100-PCIE-40GB", 1.0, 5.0);
  write_device_cache((root / "train" / "a4000.json").string(), "NVIDIA RTX A4000", 2.0, 6.0);
  const std::string cache = (root / "a6000.json").string();
  write_device_cache(cache, "NVIDIA RTX A6000", 1.5, 5.5);
  const std::string run = (root / "run").string();
  std::string output;
  ASSERT_EQ(run_graphcost("train --data " + (root / "train").string() +
                              " --model gnn --collection tile:xla --valid-split '' --iterations 3"
                              " --graphs-per-batch 2 --slate-size 8 --hidden 8 8 --threads 1"
                              " --out " +
                              run,
                          &output),
            0)
      << output;
  const std::string scores_path = (root / "scores.json").string();
  ASSERT_EQ(run_graphcost("predict --model " + run + " --data " + cache +
                              " --split '' --threads 1 --out " + (root / "sub.csv").string() +
                              " --scores " + scores_path,
                          &output),
            0)
      << output;
  const std::vector<double> want =
      json::parse(read_file(scores_path)).at("toy_NVIDIA_RTX_A6000").get<std::vector<double>>();

  // The request: the cache as the reader encodes it, sent as JSON arrays.
  graphcost::data::GraphRecord record = graphcost::io::read_kernel_tuner_cache(cache);
  ASSERT_EQ(record.graph.feature_width, 8);  // 7 device columns, 1 problem-size column
  const std::string npz = (root / "a6000.npz").string();
  graphcost::io::write_tpugraphs_npz(npz, record, {}, false);
  const std::string body = graphcost::serve::npz_as_json_request(npz).dump();

  ServeProcess server;
  std::string message;
  ASSERT_TRUE(server.start("--model kt=" + run + " --threads 1", (root / "serve.log").string(),
                           &message))
      << message;
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(60);
  const httplib::Result res = client.Post("/v1/models/kt/rank", body, "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  ASSERT_EQ(res->status, 200) << res->body;
  const std::vector<double> got = json::parse(res->body).at("scores").get<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0)
      << "serve's scores differ from predict's";
  fs::remove_all(root);
}

}  // namespace
