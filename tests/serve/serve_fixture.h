// The serve tests' shared fixture: a tiny layout and tile model trained once on synthetic data,
// predict's scores for one test graph of each, and one `graphcost serve` of both on a free
// loopback port, for every TEST_F(ServeTest, ...) of the test binary.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../cli/run_graphcost.h"
#include "core/atomic_file.h"
#include "serve/request_json.h"
#include "serve_process.h"

namespace graphcost::testing {

namespace fs = std::filesystem;
using nlohmann::json;

// One graph of the test split, what predict made of it, and its request bodies.
struct Case {
  std::string collection;
  std::string model;  // the served name
  std::string run_dir;
  std::string file;   // the .npz
  std::string stem;
  json scores;                     // predict --scores for this graph
  std::vector<int64_t> top_configs;  // predict's submission row
  json request;                    // the file's arrays as JSON
};

class ServeFixtureCleanUp;

class ServeTest : public ::testing::Test {
 protected:
  // Once for the binary, whichever suite derived from ServeTest runs first (the models take a
  // while to train); clean_up() at the end of the run removes it.
  static void SetUpTestSuite() {
    if (server_) return;
    // A server that closes a connection while a client still sends must fail the test with a
    // message, not kill the test binary.
    ::signal(SIGPIPE, SIG_IGN);
    root_ = fs::temp_directory_path() / ("graphcost_serve_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::string output;
    const std::string data = (root_ / "data").string();
    ASSERT_EQ(run_graphcost("synth --out " + data + " --scale small --seed 3", &output), 0) << output;
    layout_ = make_case("layout:xla:random", "layout", " --dropout 0.2");
    tile_ = make_case("tile:xla", "tile", "");
    std::string message;
    server_ = std::make_unique<ServeProcess>();
    ASSERT_TRUE(server_->start("--model layout=" + layout_.run_dir + " --model tile=" +
                                   tile_.run_dir + " --threads 2 --max-body-mb 8 --max-configs 1000",
                               (root_ / "serve.log").string(), &message))
        << message;
  }
  friend class ServeFixtureCleanUp;
  static void clean_up() {
    server_.reset();
    if (!root_.empty()) fs::remove_all(root_);
  }

  // Trains a tiny model on the collection and runs predict on the smallest test file.
  static Case make_case(const std::string& collection, const std::string& name,
                        const std::string& train_extra) {
    Case c;
    c.collection = collection;
    c.model = name;
    c.run_dir = (root_ / ("run_" + name)).string();
    const std::string data = (root_ / "data").string();
    std::string output;
    EXPECT_EQ(run_graphcost("train --data " + data + " --collection " + collection +
                                " --valid-split '' --iterations 3 --graphs-per-batch 2 "
                                "--slate-size 8 --hidden 8 8 --out " + c.run_dir + train_extra,
                            &output),
              0)
        << output;
    const fs::path dir = fs::path(data) / "npz" / data_dir(collection) / "test";
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (c.file.empty() || fs::file_size(entry.path()) < fs::file_size(c.file))
        c.file = entry.path().string();
    }
    c.stem = fs::path(c.file).stem().string();
    const std::string submission = (root_ / (name + ".csv")).string();
    const std::string scores = (root_ / (name + "_scores.json")).string();
    EXPECT_EQ(run_graphcost("predict --model " + c.run_dir + " --data " + c.file +
                                " --collection " + collection + " --split test --threads 1 --out " +
                                submission + " --scores " + scores,
                            &output),
              0)
        << output;
    c.scores = json::parse(read_file(scores)).at(c.stem);
    const std::string text = read_file(submission);
    const std::string row = text.substr(text.find('\n') + 1);
    std::string ranking = row.substr(row.find(',') + 1);
    for (size_t at = 0; at < ranking.size();) {
      const size_t end = ranking.find_first_of(";\n", at);
      c.top_configs.push_back(std::stoll(ranking.substr(at, end - at)));
      if (end == std::string::npos || ranking[end] == '\n') break;
      at = end + 1;
    }
    c.request = graphcost::serve::npz_as_json_request(c.file);
    return c;
  }
  static std::string data_dir(const std::string& collection) {
    return collection == "tile:xla" ? "tile/xla" : "layout/xla/random";
  }

  static httplib::Client client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(60);
    return c;
  }
  static httplib::Result rank_json(const std::string& model, const std::string& body) {
    return client().Post(("/v1/models/" + model + "/rank").c_str(), body, "application/json");
  }
  static std::string npz_bytes(const Case& c) { return read_file(c.file); }

  // The scores, order and size a good answer for case c holds, bitwise as predict wrote them.
  static void expect_predict_ranking(const Case& c, const httplib::Result& res) {
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    ASSERT_EQ(res->status, 200) << res->body;
    const json answer = json::parse(res->body);
    const std::vector<double> got = answer.at("scores").get<std::vector<double>>();
    const std::vector<double> want = c.scores.get<std::vector<double>>();
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0)
        << c.model << ": scores differ from predict's";
    const std::vector<int64_t> order = answer.at("order").get<std::vector<int64_t>>();
    ASSERT_EQ(order.size(), got.size());
    ASSERT_LE(c.top_configs.size(), order.size());
    EXPECT_TRUE(std::equal(c.top_configs.begin(), c.top_configs.end(), order.begin()))
        << c.model << ": order differs from predict's submission";
    EXPECT_EQ(answer.at("configurations").get<size_t>(), got.size());
  }
  // The server still ranks a good request correctly.
  static void expect_still_serving() { expect_predict_ranking(tile_, rank_json("tile", tile_.request.dump())); }

  static inline fs::path root_;
  static inline Case layout_, tile_;
  static inline std::unique_ptr<ServeProcess> server_;
};

// Removes the fixture's server and folder after the last test.
class ServeFixtureCleanUp final : public ::testing::Environment {
 public:
  void TearDown() override { ServeTest::clean_up(); }
};
inline ::testing::Environment* const serve_fixture_clean_up =
    ::testing::AddGlobalTestEnvironment(new ServeFixtureCleanUp);

}  // namespace graphcost::testing
