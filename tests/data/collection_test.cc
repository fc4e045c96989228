#include "data/collection.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.h"
#include "io/collection_readers.h"
#include "io/npz.h"
#include "io/tpugraphs_npz.h"
#include "test_records.h"

namespace graphcost::data {
namespace {

using io::for_each_graph;
using io::open_collection;

namespace fs = std::filesystem;

TEST(CollectionId, ParsesAndNamesEveryCollection) {
  for (const CollectionId& id : CollectionId::all()) EXPECT_EQ(CollectionId::parse(id.str()).str(), id.str());
  CollectionId id = CollectionId::parse("layout:nlp:random");
  EXPECT_EQ(id.kind, ConfigKind::Layout);
  EXPECT_EQ(id.relative_dir(), "npz/layout/nlp/random");
  EXPECT_EQ(CollectionId::parse("tile:xla").relative_dir(), "npz/tile/xla");
}

TEST(CollectionId, UnknownIdListsTheValidOnes) {
  try {
    CollectionId::parse("layout:xla");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layout:nlp:random"), std::string::npos) << e.what();
  }
}

class OpenCollection : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("graphcost_collection_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    dir_ = root_ / "npz/layout/xla/default/train";
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& stem, GraphRecord r, const fs::path& dir) {
    io::RuntimeColumns runtimes;
    for (double t : r.configs.runtimes) runtimes.runtime_ns.push_back(static_cast<int64_t>(t));
    io::write_tpugraphs_npz((dir / (stem + ".npz")).string(), r, runtimes, true);
  }

  CollectionId id_ = CollectionId::parse("layout:xla:default");
  fs::path root_;
  fs::path dir_;
};

TEST_F(OpenCollection, LoadsSortedValidatesAndMerges) {
  write("b", testing::small_layout_record(), dir_);
  write("a", testing::small_layout_record(), dir_);
  auto c = open_collection(root_.string(), id_, "train", {});
  ASSERT_EQ(c->size(), 2);
  EXPECT_EQ(c->graph(0).name, "a");
  EXPECT_EQ(c->graph(1).name, "b");
  EXPECT_EQ(c->configs(0).count, 2);  // the duplicate configuration merged
  EXPECT_EQ(c->configs(0).runtimes[0], 10);
  EXPECT_EQ(c->node_feature_width(), 2);
  EXPECT_EQ(c->config_width(), 2);
  // The same folder opened as a collection folder, a split folder and a single file.
  EXPECT_EQ(open_collection((root_ / "npz/layout/xla/default").string(), id_, "train", {})->size(), 2);
  EXPECT_EQ(open_collection(dir_.string(), id_, "", {})->size(), 2);
  EXPECT_EQ(open_collection((dir_ / "a.npz").string(), id_, "", {})->size(), 1);
}

TEST_F(OpenCollection, InvalidFileFailsOrIsSkipped) {
  write("good", testing::small_layout_record(), dir_);
  GraphRecord bad = testing::small_layout_record();
  bad.graph.configurable_nodes = {1, 1};
  write("bad", bad, dir_);
  EXPECT_THROW(open_collection(root_.string(), id_, "train", {}), Error);
  LoadOptions skip;
  skip.skip_invalid = true;
  auto c = open_collection(root_.string(), id_, "train", skip);
  ASSERT_EQ(c->size(), 1);
  EXPECT_EQ(c->graph(0).name, "good");
  LoadOptions exclude;
  exclude.exclude = {"bad"};
  EXPECT_EQ(open_collection(root_.string(), id_, "train", exclude)->size(), 1);
}

TEST_F(OpenCollection, FeatureWidthsMustAgree) {
  write("a", testing::small_layout_record(), dir_);
  GraphRecord wide = testing::small_layout_record();
  wide.graph.feature_width = 1;
  wide.graph.node_features = {0, 1, 2, 3};
  write("b", wide, dir_);
  EXPECT_THROW(open_collection(root_.string(), id_, "train", {}), Error);
}

TEST_F(OpenCollection, EmptyOrMissingFoldersAndWrongKind) {
  EXPECT_THROW(open_collection(root_.string(), id_, "train", {}), Error);  // no files
  EXPECT_THROW(open_collection(root_.string(), id_, "valid", {}), Error);  // no folder
  EXPECT_THROW(open_collection((root_ / "nothing").string(), id_, "train", {}), Error);
  write("a", testing::small_layout_record(), dir_);
  EXPECT_THROW(open_collection((dir_ / "a.npz").string(), CollectionId::parse("tile:xla"), "", {}), Error);
}

TEST_F(OpenCollection, TestFilesTakeRuntimesFromAnswers) {
  fs::path test_dir = root_ / "npz/layout/xla/default/test";
  fs::path answers_dir = root_ / "answers/layout/xla/default/test";
  fs::create_directories(test_dir);
  fs::create_directories(answers_dir);
  GraphRecord r = testing::small_layout_record();
  GraphRecord hidden = r;
  hidden.configs.runtimes.clear();
  write("t", hidden, test_dir);
  io::NpzWriter answers((answers_dir / "t.npz").string(), true);
  answers.add("config_runtime", io::make_array<int64_t>({30, 20, 10}, {3}));
  answers.commit();
  LoadOptions keep;
  keep.merge_duplicates = false;
  auto c = open_collection(root_.string(), id_, "test", keep);
  ASSERT_TRUE(c->configs(0).has_runtimes());
  EXPECT_EQ(c->configs(0).runtimes[2], 10);
  // Through the root's npz/ folder (as the Kaggle download unpacks) the answers are found too.
  auto via_npz = open_collection((root_ / "npz/").string(), id_, "test", keep);
  ASSERT_TRUE(via_npz->configs(0).has_runtimes());
  EXPECT_EQ(via_npz->configs(0).runtimes[2], 10);
}

TEST_F(OpenCollection, DatasetRootOrItsNpzFolder) {
  write("a", testing::small_layout_record(), dir_);
  const std::string root = root_.lexically_normal().string();
  EXPECT_EQ(dataset_root_of(root_.string()), root);
  EXPECT_EQ(dataset_root_of((root_ / "npz").string()), root);
  EXPECT_EQ(dataset_root_of((root_ / "npz/").string()), root);
  EXPECT_EQ(dataset_root_of((root_ / "npz/layout").string()), "");
  EXPECT_EQ(dataset_root_of(dir_.string()), "");
  EXPECT_EQ(dataset_root_of((root_ / "nothing").string()), "");
  EXPECT_EQ(open_collection((root_ / "npz").string(), id_, "train", {})->size(), 1);
  // An npz/ folder without layout/ or tile/ is a plain folder of files.
  fs::create_directories(root_ / "other/npz");
  write("b", testing::small_layout_record(), root_ / "other/npz");
  EXPECT_EQ(dataset_root_of((root_ / "other/npz").string()), "");
  EXPECT_EQ(open_collection((root_ / "other/npz").string(), id_, "", {})->size(), 1);
}

TEST_F(OpenCollection, SplitFolderAskedForAnotherSplitIsAnError) {
  write("a", testing::small_layout_record(), dir_);  // dir_ is .../train
  EXPECT_EQ(open_collection(dir_.string(), id_, "train", {})->size(), 1);
  EXPECT_EQ(open_collection(dir_.string(), id_, "", {})->size(), 1);
  // Any folder named after a split, inside a collection or not, with or without a trailing slash.
  fs::create_directories(root_ / "mine/valid");
  write("b", testing::small_layout_record(), root_ / "mine/valid");
  for (const fs::path& p : {dir_, root_ / "mine/valid/"}) {
    const std::string asked = p == dir_ ? "valid" : "test";
    const std::string own = p == dir_ ? "train" : "valid";
    for (int streaming = 0; streaming < 2; ++streaming) {
      try {
        if (streaming) {
          for_each_graph(p.string(), id_, asked, {}, 1, [](auto&, auto&, auto&) {});
        } else {
          open_collection(p.string(), id_, asked, {});
        }
        FAIL() << p << " read as " << asked;
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), p.string() + ": is a " + own + " split folder, but split " +
                                             asked + " was asked (give the folder that holds the "
                                             "splits)");
      }
    }
  }
  // A folder with another name is read whatever the split (a folder of files).
  fs::create_directories(root_ / "files");
  write("c", testing::small_layout_record(), root_ / "files");
  EXPECT_EQ(open_collection((root_ / "files").string(), id_, "valid", {})->size(), 1);
}

TEST_F(OpenCollection, FoldersNameTheirCollection) {
  write("a", testing::small_layout_record(), dir_);
  const fs::path collection = root_ / "npz/layout/xla/default";
  for (const fs::path& p : {dir_, collection, collection / "", fs::relative(dir_)}) {
    const std::optional<CollectionId> id = collection_id_in_path(p.string());
    ASSERT_TRUE(id) << p;
    EXPECT_EQ(id->str(), "layout:xla:default") << p;
  }
  fs::create_directories(root_ / "npz/tile/xla/valid");
  fs::create_directories(root_ / "npz/layout/nlp/random/test");
  EXPECT_EQ(collection_id_in_path((root_ / "npz/tile/xla/valid").string())->str(), "tile:xla");
  EXPECT_EQ(collection_id_in_path((root_ / "npz/layout/nlp/random").string())->str(),
            "layout:nlp:random");
  for (const fs::path& p : {root_, root_ / "npz", root_ / "npz/layout/xla", dir_ / "a.npz",
                            root_ / "npz/layout/xla/other", root_ / "npz/tile/xla/valid/x"}) {
    EXPECT_FALSE(collection_id_in_path(p.string())) << p;
  }
  // Asking a named folder for another collection: an error naming the folder and both ids, from
  // open_collection and from for_each_graph.
  const CollectionId random = CollectionId::parse("layout:xla:random");
  for (int streaming = 0; streaming < 2; ++streaming) {
    try {
      if (streaming) {
        for_each_graph(dir_.string(), random, "", {}, 1, [](auto&, auto&, auto&) {});
      } else {
        open_collection(dir_.string(), random, "", {});
      }
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), dir_.string() + ": is a folder of collection "
                                           "layout:xla:default, but collection layout:xla:random "
                                           "was asked");
    }
  }
  // The same id, or the kind from the data, reads it; the latter names it by the folder.
  EXPECT_EQ(open_collection(dir_.string(), id_, "", {})->id().str(), "layout:xla:default");
  fs::create_directories(root_ / "npz/layout/nlp/random/train");
  write("b", testing::small_layout_record(), root_ / "npz/layout/nlp/random/train");
  LoadOptions from_data;
  from_data.kind_from_data = true;
  EXPECT_EQ(open_collection((root_ / "npz/layout/nlp/random/train").string(), CollectionId{}, "",
                            from_data)
                ->id()
                .str(),
            "layout:nlp:random");
  // A dataset root picks the folder by id, as before.
  EXPECT_EQ(open_collection(root_.string(), id_, "train", {})->size(), 1);
}

}  // namespace
}  // namespace graphcost::data

namespace graphcost::data {
namespace {

using io::for_each_graph;
using io::open_collection;

TEST_F(OpenCollection, KindFromData) {
  write("a", testing::small_layout_record(), dir_);
  LoadOptions options;
  options.kind_from_data = true;
  auto c = open_collection((dir_ / "a.npz").string(), CollectionId::parse("tile:xla"), "", options);
  EXPECT_EQ(c->id().str(), "layout:xla:default");
}

}  // namespace
}  // namespace graphcost::data

namespace graphcost::data {
namespace {

using io::for_each_graph;
using io::open_collection;

TEST_F(OpenCollection, ForEachGraphStreamsWhatOpenCollectionHolds) {
  for (const char* stem : {"c", "a", "b", "d", "e"}) write(stem, testing::small_layout_record(), dir_);
  GraphRecord bad = testing::small_layout_record();
  bad.graph.configurable_nodes = {1, 1};
  write("bad", bad, dir_);
  LoadOptions options;
  options.skip_invalid = true;
  options.exclude = {"d"};
  options.prune_hops = 0;
  const auto whole = open_collection(root_.string(), id_, "train", options);
  for (int64_t files_at_once : {1, 2, 100}) {
    std::vector<std::string> names;
    int64_t index = 0;
    const CollectionId id = for_each_graph(
        root_.string(), id_, "train", options, files_at_once,
        [&](const Graph& graph, const ConfigView& configs, const std::string& source) {
          ASSERT_LT(index, whole->size());
          EXPECT_EQ(graph.name, whole->graph(index).name);
          EXPECT_EQ(graph.num_nodes, whole->graph(index).num_nodes);
          EXPECT_EQ(graph.edges, whole->graph(index).edges);
          EXPECT_EQ(configs.count, whole->configs(index).count);
          EXPECT_EQ(source, whole->source(index));
          names.push_back(graph.name);
          ++index;
        });
    EXPECT_EQ(id.str(), id_.str());
    EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "e"})) << files_at_once;
  }
  EXPECT_EQ(whole->graph(0).num_nodes, 2);  // pruned to the configurable nodes
  // Without skip_invalid the bad file stops the stream, as it stops open_collection.
  EXPECT_THROW(for_each_graph(root_.string(), id_, "train", {}, 2,
                              [](const Graph&, const ConfigView&, const std::string&) {}),
               Error);
  GraphRecord wide = testing::small_layout_record();
  wide.graph.feature_width = 1;
  wide.graph.node_features = {0, 1, 2, 3};
  write("f", wide, dir_);
  EXPECT_THROW(for_each_graph(root_.string(), id_, "train", options, 1,
                              [](const Graph&, const ConfigView&, const std::string&) {}),
               Error);
}

TEST(OpenCollectionRaw, ReadsTuningRecordsDirectly) {
  const std::string tile = std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/op_tuning_data.pb";
  const std::string layout = std::string(GRAPHCOST_SHARED_DATA) + "/tpugraphs/module_tuning_data_layout.pb";
  if (!fs::exists(tile) || !fs::exists(layout)) GTEST_SKIP() << "shared/data/tpugraphs not present";
  LoadOptions keep;
  keep.merge_duplicates = false;
  auto c = open_collection(tile, CollectionId::parse("tile:xla"), "", keep);
  EXPECT_EQ(c->size(), 15);
  int64_t configs = 0;
  for (int64_t g = 0; g < c->size(); ++g) configs += c->configs(g).count;
  EXPECT_EQ(configs, 752);
  auto l = open_collection(layout, CollectionId::parse("layout:xla:default"), "", keep);
  ASSERT_EQ(l->size(), 1);
  EXPECT_EQ(l->graph(0).num_nodes, 3163);
  EXPECT_EQ(l->configs(0).count, 112);
  EXPECT_EQ(l->configs(0).nodes, 62);
  LoadOptions extended = keep;
  extended.extended_features = true;
  EXPECT_EQ(open_collection(layout, CollectionId::parse("layout:xla:default"), "", extended)->node_feature_width(), 176);
}

}  // namespace
}  // namespace graphcost::data
