#include "io/npz.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "expect_error.h"
#include "temp_dir.h"

namespace graphcost::io {
namespace {

using testing::expect_error;

// np.savez(a=np.array([1, -2, 3], int32), h=np.array([1.0, -2.5], float16)) as numpy 1.24
// wrote it: stored entries whose local headers carry zip64 extra fields.
const unsigned char kNumpySavez[] = {
    0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x9e, 0xe7,
    0x79, 0x10, 0x8c, 0x00, 0x00, 0x00, 0x8c, 0x00, 0x00, 0x00, 0x05, 0x00, 0x14, 0x00, 0x61, 0x2e,
    0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x8c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76,
    0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x69, 0x34, 0x27,
    0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72,
    0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65,
    0x27, 0x3a, 0x20, 0x28, 0x33, 0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x01, 0x00, 0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, 0x03,
    0x00, 0x00, 0x00, 0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21,
    0x00, 0x4b, 0x25, 0x01, 0x78, 0x84, 0x00, 0x00, 0x00, 0x84, 0x00, 0x00, 0x00, 0x05, 0x00, 0x14,
    0x00, 0x68, 0x2e, 0x6e, 0x70, 0x79, 0x01, 0x00, 0x10, 0x00, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59,
    0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c,
    0x66, 0x32, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72,
    0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68,
    0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x3c, 0x00, 0xc1, 0x50, 0x4b,
    0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x9e, 0xe7,
    0x79, 0x10, 0x8c, 0x00, 0x00, 0x00, 0x8c, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x61, 0x2e, 0x6e, 0x70,
    0x79, 0x50, 0x4b, 0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21,
    0x00, 0x4b, 0x25, 0x01, 0x78, 0x84, 0x00, 0x00, 0x00, 0x84, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0xc3, 0x00, 0x00, 0x00, 0x68,
    0x2e, 0x6e, 0x70, 0x79, 0x50, 0x4b, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00,
    0x66, 0x00, 0x00, 0x00, 0x7e, 0x01, 0x00, 0x00, 0x00, 0x00,
};

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

class NpzTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  // Writes two arrays; data values are distinctive so their bytes can be found in the file.
  std::string write_sample(const std::string& name, bool compress) {
    NpzWriter writer(path(name), compress);
    std::vector<float> values(1000);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * static_cast<float>(i);
    writer.add("feat", make_array(values, {100, 10}));
    writer.add("ids", make_array(std::vector<int64_t>{7, -1, 1LL << 40}, {3}));
    writer.commit();
    return path(name);
  }

  TempDir dir_;
};

TEST_F(NpzTest, RoundTripStoredAndDeflate) {
  for (bool compress : {false, true}) {
    const std::string file = write_sample(compress ? "d.npz" : "s.npz", compress);
    NpzReader reader(file);
    EXPECT_EQ(reader.keys(), (std::vector<std::string>{"feat", "ids"}));
    EXPECT_TRUE(reader.has("ids"));
    EXPECT_FALSE(reader.has("ids.npy"));
    const NpyArray feat = reader.read("feat");
    EXPECT_EQ(feat.dtype, DType::Float32);
    EXPECT_EQ(feat.shape, (std::vector<int64_t>{100, 10}));
    const std::vector<float> values = feat.to_vector<float>("x");
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(values[i], 0.5f * static_cast<float>(i));
    EXPECT_EQ(reader.read("ids").to_vector<int64_t>("x"), (std::vector<int64_t>{7, -1, 1LL << 40}));
    const NpyArray header = reader.read_header("feat");
    EXPECT_EQ(header.shape, (std::vector<int64_t>{100, 10}));
    EXPECT_TRUE(header.data.empty());
    // No temporary file left behind.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_.path()), {}),
              compress ? 2 : 1);
  }
  // Deflate made the compressible array smaller.
  EXPECT_LT(std::filesystem::file_size(path("d.npz")), std::filesystem::file_size(path("s.npz")));
}

TEST_F(NpzTest, EmptyArchiveRoundTrips) {
  NpzWriter writer(path("empty.npz"), true);
  writer.commit();
  EXPECT_TRUE(NpzReader(path("empty.npz")).keys().empty());
}

TEST_F(NpzTest, ReadsNumpyWrittenArchiveWithZip64Extras) {
  const std::string file = path("numpy.npz");
  write_bytes(file, std::string(reinterpret_cast<const char*>(kNumpySavez), sizeof(kNumpySavez)));
  NpzReader reader(file);
  EXPECT_EQ(reader.keys(), (std::vector<std::string>{"a", "h"}));
  EXPECT_EQ(reader.read("a").to_vector<int32_t>("x"), (std::vector<int32_t>{1, -2, 3}));
  const NpyArray h = reader.read("h");
  EXPECT_EQ(h.dtype, DType::Float16);
  EXPECT_EQ(h.to_vector<float>("x"), (std::vector<float>{1.0f, -2.5f}));
}

TEST_F(NpzTest, ReadingOneKeyIgnoresADamagedOtherEntry) {
  // Stored entries: flip a byte inside the data of "feat" only.
  const std::string file = write_sample("one.npz", false);
  std::string bytes = read_file(file);
  float marker = 0.5f * 500;
  const size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&marker), 4));
  ASSERT_NE(at, std::string::npos);
  bytes[at] ^= 0x10;
  write_bytes(file, bytes);
  NpzReader reader(file);
  EXPECT_EQ(reader.read("ids").to_vector<int64_t>("x"), (std::vector<int64_t>{7, -1, 1LL << 40}));
  EXPECT_EQ(reader.read_header("feat").shape, (std::vector<int64_t>{100, 10}));
  expect_error([&] { reader.read("feat"); }, {file + ": feat: ", "CRC"});
}

TEST_F(NpzTest, BitFlippedDeflateEntryIsAnError) {
  const std::string file = write_sample("flip.npz", true);
  const std::string original = read_file(file);
  // Flip bytes at several places inside the first entry's compressed data.
  int errors = 0;
  for (size_t offset = 60; offset < 200; offset += 20) {
    std::string bytes = original;
    bytes[offset] ^= 0x01;
    write_bytes(file, bytes);
    try {
      NpzReader reader(file);
      reader.read("feat");
      reader.read("ids");
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
      ++errors;
    }
  }
  EXPECT_EQ(errors, 7);
}

TEST_F(NpzTest, TruncatedArchiveIsNotValid) {
  for (bool compress : {false, true}) {
    const std::string file = write_sample("t.npz", compress);
    const std::string bytes = read_file(file);
    for (size_t cut : {size_t{0}, size_t{3}, size_t{30}, bytes.size() / 2, bytes.size() - 30,
                       bytes.size() - 10, bytes.size() - 1}) {
      write_bytes(file, bytes.substr(0, cut));
      expect_error([&] { NpzReader reader(file); }, {file + ": not a valid npz archive ("});
    }
  }
}

TEST_F(NpzTest, GarbageAndMissingFilesAreErrors) {
  const std::string file = path("garbage.npz");
  write_bytes(file, std::string(5000, 'x'));
  expect_error([&] { NpzReader reader(file); }, {file + ": not a valid npz archive ("});
  expect_error([&] { NpzReader reader(path("absent.npz")); }, {path("absent.npz") + ": "});
}

TEST_F(NpzTest, MissingKeyNamesFileAndKey) {
  const std::string file = write_sample("k.npz", false);
  NpzReader reader(file);
  expect_error([&] { reader.read("node_feat"); }, {file + ": node_feat: missing key"});
  expect_error([&] { reader.read_header("node_feat"); }, {file + ": node_feat: missing key"});
}

TEST_F(NpzTest, MalformedEntriesNameFileAndKey) {
  // Entries that are not valid .npy images, written as raw bytes through the writer's path.
  NpyArray fortran = make_array(std::vector<float>{1, 2, 3, 4}, {2, 2});
  std::string image = serialize_npy(fortran);
  const std::string file = path("bad.npz");
  {
    NpzWriter writer(file, false);
    writer.add("good", fortran);
    writer.commit();
  }
  auto replace_in_file = [&](const std::string& from, const std::string& to) {
    std::string bytes = read_file(file);
    const size_t at = bytes.find(from);
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, from.size(), to);
    write_bytes(file, bytes);
  };
  // Same-length edits keep the zip structure; the CRC then fails or the header is rejected.
  replace_in_file("'<f4'", "'>f4'");
  expect_error([&] { NpzReader(file).read("good"); }, {file + ": good: "});
  expect_error([&] { NpzReader(file).read_header("good"); }, {file + ": good: ", "big-endian"});
  replace_in_file("'>f4'", "'<U4'");
  expect_error([&] { NpzReader(file).read_header("good"); }, {file + ": good: ", "<U4"});
  replace_in_file("'<U4'", "'<f4'");
  replace_in_file("False", "Fals ");
  expect_error([&] { NpzReader(file).read_header("good"); }, {file + ": good: ", "fortran_order"});
  replace_in_file("Fals ", "False");
  replace_in_file("(2, 2)", "(2, 3)");
  expect_error([&] { NpzReader(file).read("good"); }, {file + ": good: ", "needs 24"});
  replace_in_file("(2, 3)", "(2, 2)");
  EXPECT_EQ(NpzReader(file).read("good").to_vector<float>("x"), (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace graphcost::io
