// Study storage on SQLite and on a real PostgreSQL server (started by the tests): round trips,
// the trial limit, heartbeat time-outs, grid indices, and several processes claiming at once.
#include "study/storage.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "../io/temp_dir.h"
#include "core/error.h"
#include "postgres_server.h"

namespace graphcost::study {
namespace {

using nlohmann::json;

PostgresServer& postgres_server() {
  static PostgresServer server;  // started on first use, stopped at exit
  return server;
}

std::string error_of_url(const std::string& url) {
  try {
    open_storage(url);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const json kSpace = json::parse(R"({"lr": {"type": "float", "low": 0.001, "high": 0.1}})");

class StudyStorage : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      PostgresServer& server = postgres_server();
      if (!server.ok) GTEST_SKIP() << "no PostgreSQL server for the tests: " << server.why;
      url_ = server.fresh_database_url();
      ASSERT_FALSE(url_.empty()) << "createdb failed";
    } else {
      url_ = "sqlite:///" + dir_.path() + "/study.db";  // four slashes: an absolute path
    }
  }
  TempDir dir_;
  std::string url_;
};

TEST_P(StudyStorage, RoundTripsTrialsParamsValuesAndStates) {
  auto storage = open_storage(url_);
  const json settings = {{"sampler", "tpe"}, {"pruner", "median"}};
  const int64_t study = storage->open_study("s1", true, kSpace, settings);
  EXPECT_EQ(storage->open_study("s1", true, kSpace, json::object()), study);  // opened again
  const int64_t other = storage->open_study("s2", false, kSpace, json::object());
  EXPECT_NE(other, study);
  EXPECT_EQ(storage->study_names(), (std::vector<std::string>{"s1", "s2"}));
  EXPECT_EQ(storage->study_settings(study), settings);

  const auto t0 = storage->claim_trial(study, 10, 0, "host:1", false, 0);
  const auto t1 = storage->claim_trial(study, 10, 0, "host:2", false, 0);
  const auto t2 = storage->claim_trial(study, 10, 0, "host:1", false, 0);
  ASSERT_TRUE(t0 && t1 && t2);
  EXPECT_EQ(t0->number, 0);
  EXPECT_EQ(t1->number, 1);
  EXPECT_EQ(t2->number, 2);
  EXPECT_FALSE(t0->grid_index.has_value());
  // Numbers count per study.
  EXPECT_EQ(storage->claim_trial(other, 10, 0, "w", false, 0)->number, 0);

  const json params = {{"lr", 0.0123456789012345678}, {"model.hidden", {128, 64}}};
  storage->set_params(study, 0, params, "runs/t0");
  storage->report(study, 0, 1, 0.25);
  storage->report(study, 0, 2, 1.0 / 3.0);
  storage->report(study, 0, 2, 0.5);  // a repeated step overwrites
  storage->finish(study, 0, TrialState::Complete, 0.1 + 0.2, "");
  storage->report(study, 1, 1, 0.125);
  storage->finish(study, 1, TrialState::Pruned, std::nullopt, "pruned at step 1");
  storage->finish(study, 2, TrialState::Failed, std::nullopt, "exit status 1");

  const std::vector<TrialRecord> trials = storage->trials(study);
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[0].state, TrialState::Complete);
  EXPECT_EQ(trials[0].params, params);
  EXPECT_EQ(trials[0].value, 0.1 + 0.2);  // bit-exact round trip
  EXPECT_EQ(trials[0].intermediate, (std::map<int64_t, double>{{1, 0.25}, {2, 0.5}}));
  EXPECT_EQ(trials[0].run_dir, "runs/t0");
  EXPECT_EQ(trials[0].worker, "host:1");
  EXPECT_GT(trials[0].started, 1.6e9);
  EXPECT_GE(trials[0].finished, trials[0].started);
  EXPECT_GE(trials[0].heartbeat, trials[0].started);
  EXPECT_EQ(trials[1].state, TrialState::Pruned);
  EXPECT_FALSE(trials[1].value.has_value());
  EXPECT_EQ(trials[1].message, "pruned at step 1");
  EXPECT_EQ(trials[1].params, json::object());
  EXPECT_EQ(trials[2].state, TrialState::Failed);
  EXPECT_EQ(trials[2].message, "exit status 1");
  EXPECT_EQ(storage->trials(other).size(), 1u);

  // A trial is finished once.
  try {
    storage->finish(study, 0, TrialState::Complete, 1.0, "");
    FAIL() << "finished twice";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "trial 0: is not running (it timed out, or was finished already)"),
              std::string::npos)
        << e.what();
  }

  // Reopened from a new connection: the same trials.
  auto again = open_storage(url_);
  EXPECT_EQ(again->trials(study).size(), 3u);
  EXPECT_EQ(again->trials(study)[0].intermediate.at(2), 0.5);
}

TEST_P(StudyStorage, AnExistingStudyMustMatchDirectionAndSpace) {
  auto storage = open_storage(url_);
  storage->open_study("s", false, kSpace, json::object());
  try {
    storage->open_study("s", true, kSpace, json::object());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.key(), "study s");
    EXPECT_NE(std::string(e.what()).find("study s: exists with direction minimize, not maximize"),
              std::string::npos)
        << e.what();
  }
  json other_space = kSpace;
  other_space["lr"]["high"] = 0.2;
  try {
    storage->open_study("s", false, other_space, json::object());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("study s: exists with another space (differs at "
                                         "lr.high)"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(StudyStorage, StopsAtTheTotalTrialCount) {
  auto storage = open_storage(url_);
  const int64_t study = storage->open_study("s", false, kSpace, json::object());
  for (int64_t i = 0; i < 3; ++i)
    ASSERT_EQ(storage->claim_trial(study, 3, 0, "w", false, 0)->number, i);
  storage->finish(study, 1, TrialState::Failed, std::nullopt, "");
  // Failed trials count too: no fourth.
  EXPECT_FALSE(storage->claim_trial(study, 3, 0, "w", false, 0).has_value());
  EXPECT_EQ(storage->claim_trial(study, 4, 0, "w", false, 0)->number, 3);
}

TEST_P(StudyStorage, FailsTrialsWhoseHeartbeatIsStale) {
  auto storage = open_storage(url_);
  const int64_t study = storage->open_study("s", false, kSpace, json::object());
  storage->claim_trial(study, 10, 0, "w", false, 0);  // trial 0
  storage->claim_trial(study, 10, 0, "w", false, 0);  // trial 1
  // Timeout 0.5 s; trial 0 silent for 0.8 s; trial 1 beats just before the claim (a loaded
  // machine has 0.5 s for the two statements).
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  storage->heartbeat(study, 1);
  const auto t2 = storage->claim_trial(study, 10, 0.5, "w", false, 0);
  ASSERT_TRUE(t2);
  EXPECT_EQ(t2->number, 2);
  const std::vector<TrialRecord> trials = storage->trials(study);
  EXPECT_EQ(trials[0].state, TrialState::Failed);
  EXPECT_EQ(trials[0].message, "timed out: no heartbeat for more than 0.5 s");
  EXPECT_GT(trials[0].finished, 0);
  EXPECT_EQ(trials[1].state, TrialState::Running);
  EXPECT_EQ(trials[2].state, TrialState::Running);
  // The timed-out worker's late result is refused.
  EXPECT_THROW(storage->finish(study, 0, TrialState::Complete, 1.0, ""), Error);
  // A report refreshes the heartbeat: trial 1 reports, waits, and survives a claim.
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  storage->report(study, 1, 5, 0.5);
  storage->claim_trial(study, 10, 0.5, "w", false, 0);
  EXPECT_EQ(storage->trials(study)[1].state, TrialState::Running);
  EXPECT_EQ(storage->trials(study)[2].state, TrialState::Failed);  // silent since its claim
}

TEST_P(StudyStorage, HandsOutEachGridIndexOnceAndRetriesFailedPoints) {
  auto storage = open_storage(url_);
  const int64_t study = storage->open_study("s", false, kSpace, json::object());
  for (int64_t i = 0; i < 3; ++i) {
    const auto t = storage->claim_trial(study, 10, 0, "w", true, 3);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->grid_index, i);
  }
  EXPECT_FALSE(storage->claim_trial(study, 10, 0, "w", true, 3).has_value());  // all held
  storage->finish(study, 0, TrialState::Complete, 1.0, "");
  storage->finish(study, 1, TrialState::Failed, std::nullopt, "crashed");
  const auto retry = storage->claim_trial(study, 10, 0, "w", true, 3);
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->number, 3);
  EXPECT_EQ(retry->grid_index, 1);
  EXPECT_FALSE(storage->claim_trial(study, 10, 0, "w", true, 3).has_value());
  const std::vector<TrialRecord> trials = storage->trials(study);
  ASSERT_EQ(trials.size(), 4u);
  EXPECT_TRUE(trials[1].retried);
  EXPECT_FALSE(trials[3].retried);
  EXPECT_EQ(trials[3].grid_index, 1);
  // The retry fails too: index 1 is free again, the first retry now marked retried.
  storage->finish(study, 3, TrialState::Failed, std::nullopt, "crashed again");
  EXPECT_EQ(storage->claim_trial(study, 10, 0, "w", true, 3)->grid_index, 1);
  EXPECT_TRUE(storage->trials(study)[3].retried);
}

TEST_P(StudyStorage, ProcessesClaimingAtOnceNeverShareANumberOrGridIndex) {
  constexpr int kProcesses = 4;
  constexpr int64_t kTotal = 40;
  int64_t study = 0;
  {
    auto storage = open_storage(url_);
    study = storage->open_study("s", false, kSpace, json::object());
  }
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The child: its own connection; claims until the study is full, writing what it got.
      int status = 0;
      try {
        auto storage = open_storage(url_);
        std::ofstream out(dir_.path() + "/claims" + std::to_string(p));
        while (auto t =
                   storage->claim_trial(study, kTotal, 60, "p" + std::to_string(p), true, kTotal)) {
          out << t->number << " " << *t->grid_index << "\n";
          storage->finish(study, t->number, TrialState::Complete, 1.0, "");
        }
      } catch (const std::exception& e) {
        std::ofstream(dir_.path() + "/error" + std::to_string(p)) << e.what();
        status = 1;
      }
      ::_exit(status);  // no destructors or atexit handlers of the parent's copy
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a child failed";
  }
  std::multiset<int64_t> numbers, indices;
  for (int p = 0; p < kProcesses; ++p) {
    std::ifstream error(dir_.path() + "/error" + std::to_string(p));
    std::string message;
    if (std::getline(error, message)) ADD_FAILURE() << "process " << p << ": " << message;
    std::ifstream in(dir_.path() + "/claims" + std::to_string(p));
    int64_t number, index;
    while (in >> number >> index) numbers.insert(number), indices.insert(index);
  }
  EXPECT_EQ(numbers.size(), static_cast<size_t>(kTotal));
  EXPECT_EQ(std::set<int64_t>(numbers.begin(), numbers.end()).size(), static_cast<size_t>(kTotal));
  EXPECT_EQ(std::set<int64_t>(indices.begin(), indices.end()).size(), static_cast<size_t>(kTotal));
  auto storage = open_storage(url_);
  EXPECT_EQ(storage->trials(study).size(), static_cast<size_t>(kTotal));
}

INSTANTIATE_TEST_SUITE_P(Study, StudyStorage, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(StudyStorageUrl, BadUrlsAreOneLineErrors) {
  EXPECT_EQ(
      error_of_url("mysql://localhost/db"),
      "mysql://localhost/db: unknown scheme \"mysql\" (expected sqlite:/// or postgresql://)");
  EXPECT_EQ(error_of_url("study.db"),
            "study.db: not a storage URL (expected sqlite:///PATH or "
            "postgresql://USER@HOST:PORT/DB)");
  EXPECT_EQ(error_of_url("sqlite://study.db"),
            "sqlite://study.db: expected sqlite:///PATH (three slashes, four for an absolute "
            "path)");
  EXPECT_EQ(error_of_url("sqlite:///"), "sqlite:///: empty path");
  EXPECT_EQ(error_of_url("sqlite:////no/such/folder/study.db"),
            "sqlite:////no/such/folder/study.db: cannot open the database: unable to open "
            "database file");
  // No server on port 1; the password is masked and libpq's two-line message becomes one line.
  const std::string message = error_of_url("postgresql://user:secret@127.0.0.1:1/db");
  EXPECT_EQ(message.rfind("postgresql://user:***@127.0.0.1:1/db: cannot connect: ", 0), 0u)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.find("secret"), std::string::npos) << message;
}

TEST(StudyStorageUrl, RefusesANewerSchema) {
  TempDir dir;
  const std::string path = dir.path() + "/study.db";
  open_storage("sqlite:///" + path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE graphcost_schema SET version = 7", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(error_of_url("sqlite:///" + path),
            "sqlite:///" + path +
                ": the study database has schema version 7, newer than this graphcost's 1: use a "
                "newer graphcost");
}

TEST(StudyStorageUrl, RelativeSqlitePathsAreRelativeToTheWorkingFolder) {
  TempDir dir;
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  open_storage("sqlite:///sub.db")->open_study("s", false, kSpace, json::object());
  std::filesystem::current_path(previous);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/sub.db"));
}

}  // namespace
}  // namespace graphcost::study
