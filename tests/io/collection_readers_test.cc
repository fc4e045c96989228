#include "io/collection_readers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace graphcost::io {
namespace {

TEST(CollectionReaders, RecordFileFormatsByExtension) {
  std::vector<std::string> extensions;
  for (const RecordFileFormat& format : record_file_formats()) {
    extensions.push_back(format.extension);
    EXPECT_NE(format.read, nullptr) << format.extension;
  }
  EXPECT_EQ(extensions, (std::vector<std::string>{".npz", ".pb"}));
}

TEST(CollectionReaders, FormatsAreTriedPackFirstRecordFilesLast) {
  std::vector<std::string> names;
  for (const CollectionFormat& format : collection_formats()) names.push_back(format.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pack", "Kernel Tuner", "record files"}));
  // Only record files stream; the last entry accepts every path (it names what it expected).
  EXPECT_EQ(collection_formats()[0].stream, nullptr);
  EXPECT_EQ(collection_formats()[1].stream, nullptr);
  EXPECT_NE(collection_formats()[2].stream, nullptr);
  const std::string missing = "/nonexistent/graphcost/collection";
  EXPECT_FALSE(collection_formats()[0].probe(missing, "train"));
  EXPECT_FALSE(collection_formats()[1].probe(missing, "train"));
  EXPECT_TRUE(collection_formats()[2].probe(missing, "train"));
}

}  // namespace
}  // namespace graphcost::io
