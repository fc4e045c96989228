#include "io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/error.h"

namespace graphcost::io {
namespace {

const DType kAllDTypes[] = {DType::Bool,   DType::Int8,    DType::Int16,   DType::Int32,
                            DType::Int64,  DType::UInt8,   DType::UInt16,  DType::UInt32,
                            DType::UInt64, DType::Float16, DType::Float32, DType::Float64};

// A .npy image with the given header dict and data bytes, version 1.0 unless told otherwise.
std::string npy_image(const std::string& dict, const std::string& data, int major = 1) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const std::string header = dict + "\n";
  if (major == 1) {
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
  } else {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

NpyArray parse(const std::string& image) {
  return parse_npy(reinterpret_cast<const uint8_t*>(image.data()), image.size(), "x.npy: key");
}

// Expects an Error whose message contains every fragment.
void expect_error(const std::string& image, const std::vector<std::string>& fragments) {
  try {
    parse(image);
    FAIL() << "no error";
  } catch (const Error& e) {
    for (const std::string& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

TEST(Npy, DTypeNames) {
  EXPECT_EQ(dtype_descr(DType::Float32), "<f4");
  EXPECT_EQ(dtype_descr(DType::UInt8), "|u1");
  EXPECT_EQ(dtype_descr(DType::Bool), "|b1");
  EXPECT_EQ(dtype_descr(DType::Int64), "<i8");
  EXPECT_EQ(dtype_name(DType::Float16), "float16");
  EXPECT_EQ(dtype_size(DType::UInt32), 4u);
  EXPECT_TRUE(dtype_is_integer(DType::Bool));
  EXPECT_FALSE(dtype_is_integer(DType::Float64));
  EXPECT_EQ(shape_text({}), "()");
  EXPECT_EQ(shape_text({5}), "(5,)");
  EXPECT_EQ(shape_text({3, 4}), "(3, 4)");
}

TEST(Npy, EveryDTypeRoundTripsThroughSerialize) {
  std::mt19937 rng(7);
  for (DType dtype : kAllDTypes) {
    NpyArray array;
    array.dtype = dtype;
    array.shape = {3, 5};
    array.data.resize(15 * dtype_size(dtype));
    for (uint8_t& b : array.data) b = dtype == DType::Bool ? rng() % 2 : rng() % 256;
    const std::string image = serialize_npy(array);
    size_t header_bytes = 0;
    parse_npy_header(reinterpret_cast<const uint8_t*>(image.data()), image.size(), "x",
                     &header_bytes);
    EXPECT_EQ(header_bytes % 64, 0u) << dtype_name(dtype);
    EXPECT_EQ(image[header_bytes - 1], '\n');
    const NpyArray back = parse(image);
    EXPECT_EQ(back.dtype, dtype) << dtype_name(dtype);
    EXPECT_EQ(back.shape, array.shape);
    EXPECT_EQ(back.data, array.data) << dtype_name(dtype);
  }
}

TEST(Npy, ZeroDimAndEmptyShapes) {
  const NpyArray scalar = parse(serialize_npy(make_array(std::vector<double>{2.5}, {})));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.to_vector<double>("x"), std::vector<double>{2.5});
  const NpyArray empty = parse(serialize_npy(make_array(std::vector<int64_t>{}, {0, 2})));
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 2}));
  EXPECT_TRUE(empty.to_vector<int32_t>("x").empty());
}

TEST(Npy, HandBuiltImageParsesToExactValues) {
  // int16 little-endian: 1, -2, 300, -32768 as a (2, 2) array; version 2.0 header.
  const std::string data("\x01\x00\xfe\xff\x2c\x01\x00\x80", 8);
  const NpyArray array =
      parse(npy_image("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }", data, 2));
  EXPECT_EQ(array.dtype, DType::Int16);
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(array.to_vector<int32_t>("x"), (std::vector<int32_t>{1, -2, 300, -32768}));
  EXPECT_EQ(array.to_vector<double>("x"), (std::vector<double>{1, -2, 300, -32768}));
  // float32 1.5 and -0.25 with a version 3.0 header and double quotes.
  const std::string floats("\x00\x00\xc0\x3f\x00\x00\x80\xbe", 8);
  const NpyArray f = parse(
      npy_image("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}", floats, 3));
  EXPECT_EQ(f.to_vector<float>("x"), (std::vector<float>{1.5f, -0.25f}));
}

TEST(Npy, FortranOrderIsReorderedToCOrder) {
  // Column-major (2, 3) int32: memory holds columns [1, 4], [2, 5], [3, 6].
  const std::vector<int32_t> memory = {1, 4, 2, 5, 3, 6};
  const std::string data(reinterpret_cast<const char*>(memory.data()), 24);
  const NpyArray array =
      parse(npy_image("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", data));
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(array.to_vector<int32_t>("x"), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  // Rank 3 against a naive index computation.
  const int64_t a = 3, b = 4, c = 5;
  std::vector<double> fortran(a * b * c);
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k) fortran[i + a * (j + b * k)] = 100 * i + 10 * j + k;
  NpyArray cube = make_array(fortran, {a, b, c});
  fortran_to_c_order(cube);
  const std::vector<double> values = cube.to_vector<double>("x");
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k) ASSERT_EQ(values[(i * b + j) * c + k], 100 * i + 10 * j + k);
}

TEST(Npy, Float16ValuesWidenExactly) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc100), -2.5f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x03ff), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  const std::string data("\x00\x3c\x00\xc1\xff\x7b\x01\x00", 8);
  const NpyArray array =
      parse(npy_image("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }", data));
  EXPECT_EQ(array.to_vector<float>("x"),
            (std::vector<float>{1.0f, -2.5f, 65504.0f, std::ldexp(1.0f, -24)}));
  EXPECT_EQ(array.to_vector<double>("x")[2], 65504.0);
}

TEST(Npy, ConversionChecksIntegralityAndRange) {
  const NpyArray floats = make_array(std::vector<float>{-1, 0, 127, -128}, {4});
  EXPECT_EQ(floats.to_vector<int8_t>("x"), (std::vector<int8_t>{-1, 0, 127, -128}));
  EXPECT_THROW(make_array(std::vector<float>{0.5f}, {1}).to_vector<int8_t>("x"), Error);
  EXPECT_THROW(make_array(std::vector<float>{128}, {1}).to_vector<int8_t>("x"), Error);
  EXPECT_THROW(make_array(std::vector<float>{-129}, {1}).to_vector<int8_t>("x"), Error);
  EXPECT_THROW(make_array(std::vector<float>{NAN}, {1}).to_vector<int32_t>("x"), Error);
  EXPECT_THROW(make_array(std::vector<double>{-1}, {1}).to_vector<uint64_t>("x"), Error);
  EXPECT_THROW(make_array(std::vector<double>{9223372036854775808.0}, {1}).to_vector<int64_t>("x"),
               Error);
  EXPECT_EQ(make_array(std::vector<double>{-9223372036854775808.0}, {1}).to_vector<int64_t>("x")[0],
            INT64_MIN);
  EXPECT_THROW(make_array(std::vector<int64_t>{1LL << 40}, {1}).to_vector<int32_t>("x"), Error);
  EXPECT_THROW(make_array(std::vector<int64_t>{-1}, {1}).to_vector<uint8_t>("x"), Error);
  EXPECT_THROW(make_array(std::vector<uint64_t>{1ULL << 63}, {1}).to_vector<int64_t>("x"), Error);
  EXPECT_EQ(make_array(std::vector<uint64_t>{1ULL << 63}, {1}).to_vector<uint64_t>("x")[0],
            1ULL << 63);
  EXPECT_EQ(make_array(std::vector<uint8_t>{255}, {1}).to_vector<int16_t>("x")[0], 255);
  EXPECT_EQ(make_array(std::vector<bool>{true, false}, {2}).to_vector<int32_t>("x"),
            (std::vector<int32_t>{1, 0}));
  try {
    make_array(std::vector<float>{1, 300}, {2}).to_vector<int8_t>("f.npz: node_config_feat");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "f.npz: node_config_feat: value 300 at index 1 is out of range for int8");
  }
}

TEST(Npy, MakeArrayRejectsWrongCount) {
  EXPECT_THROW(make_array(std::vector<float>{1, 2, 3}, {2, 2}), Error);
}

TEST(Npy, UnsupportedHeadersAreErrorsNamingTheSource) {
  const std::string four(4, '\0');
  expect_error(
      npy_image("{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }", std::string(16, 'a')),
      {"x.npy: key", "<U4"});
  expect_error(npy_image("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", four),
               {"x.npy: key", "big-endian"});
  expect_error(
      npy_image("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", std::string(8, 0)),
      {"x.npy: key", "|O"});
  expect_error(
      npy_image("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", four),
      {"x.npy: key", "structured"});
  expect_error(
      npy_image("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 2), }", std::string(16, 0)),
      {"x.npy: key", "fortran_order"});
  expect_error(
      npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", std::string(12, 0)),
      {"x.npy: key", "12 bytes", "needs 16"});
  expect_error(
      npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(8, 0)),
      {"x.npy: key", "needs 4"});
  expect_error(npy_image("{'descr': '<f4', 'shape': (1,), }", four),
               {"x.npy: key", "fortran_order"});
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", four),
               {"x.npy: key", "shape"});
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", four),
               {"x.npy: key", "malformed"});
  expect_error(
      npy_image("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                four),
      {"x.npy: key", "too large"});
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four, 4),
               {"x.npy: key", "version"});
  expect_error("\x93NUMPZ\x01\x00", {"x.npy: key", "not a .npy"});
  expect_error("", {"x.npy: key"});
  // Header length claiming more bytes than exist.
  std::string truncated =
      npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "");
  expect_error(truncated.substr(0, 30), {"x.npy: key", "truncated"});
  // #40: a version-1 header whose version byte says 3 reads its length from the wrong bytes; the
  // message says so instead of only "truncated".
  std::string relabelled =
      npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", four);
  relabelled[6] = 3;
  expect_error(relabelled, {"x.npy: key", "the version 3 header says it is ", "bytes long, but ",
                            "a version byte that does not match its header"});
}

}  // namespace
}  // namespace graphcost::io
