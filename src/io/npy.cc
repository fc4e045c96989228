#include "io/npy.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/error.h"

namespace graphcost::io {

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr size_t kAlignment = 64;  // numpy pads headers so the data starts 64-byte aligned

struct DTypeInfo {
  DType dtype;
  char kind;
  size_t size;
  const char* name;
};

const DTypeInfo kDTypes[] = {
    {DType::Bool, 'b', 1, "bool"},       {DType::Int8, 'i', 1, "int8"},
    {DType::Int16, 'i', 2, "int16"},     {DType::Int32, 'i', 4, "int32"},
    {DType::Int64, 'i', 8, "int64"},     {DType::UInt8, 'u', 1, "uint8"},
    {DType::UInt16, 'u', 2, "uint16"},   {DType::UInt32, 'u', 4, "uint32"},
    {DType::UInt64, 'u', 8, "uint64"},   {DType::Float16, 'f', 2, "float16"},
    {DType::Float32, 'f', 4, "float32"}, {DType::Float64, 'f', 8, "float64"},
};

const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<int>(dtype)]; }

// Minimal reader for the Python dict literal of a .npy header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& context)
      : text_(text), context_(context) {}

  NpyArray parse(bool* fortran_order) {
    NpyArray array;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = parse_string();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"') fail("structured dtypes are not supported");
        array.dtype = parse_descr(parse_string());
        have_descr = true;
      } else if (key == "fortran_order") {
        const std::string word = parse_word();
        if (word != "True" && word != "False") {
          fail("fortran_order must be True or False, got '" + word + "'");
        }
        *fortran_order = word == "True";
        have_order = true;
      } else if (key == "shape") {
        array.shape = parse_shape();
        have_shape = true;
      } else {
        fail("unexpected header key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') ++pos_;
    }
    if (!have_descr || !have_order || !have_shape) {
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return array;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(context_, "", "malformed .npy header: " + problem);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a quoted string at offset " + std::to_string(pos_));
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string value = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return value;
  }
  std::string parse_word() {
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::vector<int64_t> parse_shape() {
    std::vector<int64_t> shape;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("shape must hold non-negative integers");
      int64_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (value > (std::numeric_limits<int64_t>::max() - 9) / 10)
          fail("shape dimension too large");
        value = value * 10 + (text_[pos_++] - '0');
      }
      if (peek() == 'L') ++pos_;  // Python 2 long literal
      shape.push_back(value);
      skip_space();
      if (peek() == ',') ++pos_;
    }
    ++pos_;
    return shape;
  }
  DType parse_descr(const std::string& descr) const {
    if (descr.size() < 3) fail("unsupported dtype '" + descr + "'");
    const char order = descr[0];
    const char kind = descr[1];
    const std::string digits = descr.substr(2);
    for (const DTypeInfo& d : kDTypes) {
      if (d.kind != kind || digits != std::to_string(d.size)) continue;
      if (order == '<' || order == '|' || order == '=' || (order == '>' && d.size == 1))
        return d.dtype;
      fail("big-endian dtype '" + descr + "' is not supported");
    }
    fail("unsupported dtype '" + descr + "' (expected bool, int, uint or float)");
  }

  const std::string& text_;
  const std::string& context_;
  size_t pos_ = 0;
};

// Product of the shape, or an Error when it overflows.
int64_t checked_size(const std::vector<int64_t>& shape, size_t item, const std::string& context) {
  int64_t count = 1;
  const int64_t limit = std::numeric_limits<int64_t>::max() / static_cast<int64_t>(item);
  for (int64_t d : shape) {
    if (d != 0 && count > limit / d) throw Error(context, "", "array shape is too large");
    count *= d;
  }
  return count;
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

namespace {

template <typename S>
S load(const uint8_t* p) {
  S value;
  std::memcpy(&value, p, sizeof(S));
  return value;
}

template <typename T>
std::string type_name() {
  if constexpr (std::is_floating_point_v<T>)
    return sizeof(T) == 4 ? "float32" : "float64";
  else
    return std::string(std::is_signed_v<T> ? "int" : "uint") + std::to_string(8 * sizeof(T));
}

template <typename T>
std::string value_text(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(value));
    return buffer;
  } else {
    return std::to_string(value);
  }
}

// Kept out of line so the conversion loops stay small.
template <typename T, typename S>
[[noreturn]] __attribute__((noinline)) void conversion_error(S value, int64_t index,
                                                             const std::string& context) {
  std::string problem = "value " + value_text(value) + " at index " + std::to_string(index);
  if constexpr (std::is_floating_point_v<S>) {
    if (std::isfinite(value) && value != std::trunc(value)) {
      throw Error(context, "", problem + " is not an integer");
    }
  }
  throw Error(context, "", problem + " is out of range for " + type_name<T>());
}

// Converts one element; integer targets get exact range checks so nothing wraps silently.
template <typename T, typename S>
T convert(S value, int64_t index, const std::string& context) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value);
  } else if constexpr (std::is_floating_point_v<S>) {
    // [min(T), max(T) + 1) with both bounds exact in double (max + 1 is a power of two);
    // the comparisons also reject NaN, and the round trip rejects fractions.
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
    constexpr double hi = 2.0 * static_cast<double>(std::numeric_limits<T>::max() / 2 + 1);
    const double v = static_cast<double>(value);
    if (!(v >= lo && v < hi)) conversion_error<T>(value, index, context);
    const T out = static_cast<T>(v);
    if (static_cast<double>(out) != v) conversion_error<T>(value, index, context);
    return out;
  } else {
    bool fits;
    if constexpr (std::is_signed_v<S>) {
      if (value < 0) {
        fits = std::is_signed_v<T> &&
               static_cast<int64_t>(value) >= static_cast<int64_t>(std::numeric_limits<T>::min());
      } else {
        fits = static_cast<uint64_t>(value) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
      }
    } else {
      fits = static_cast<uint64_t>(value) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    }
    if (!fits) conversion_error<T>(value, index, context);
    return static_cast<T>(value);
  }
}

template <typename T, typename S>
void convert_all(const uint8_t* data, int64_t count, const std::string& context, T* out) {
  if constexpr (std::is_same_v<T, S>) {
    if (count > 0) std::memcpy(out, data, count * sizeof(T));
  } else {
    for (int64_t i = 0; i < count; ++i) {
      out[i] = convert<T>(load<S>(data + i * sizeof(S)), i, context);
    }
  }
}

template <typename T>
void convert_half(const uint8_t* data, int64_t count, const std::string& context, T* out) {
  for (int64_t i = 0; i < count; ++i) {
    out[i] = convert<T>(half_to_float(load<uint16_t>(data + 2 * i)), i, context);
  }
}

// Walks the C-order positions with an odometer while tracking the Fortran-order offset, whose
// stride for axis j is the product of the dimensions before j.
template <size_t kItem>
void reorder_fortran(NpyArray& array) {
  const size_t rank = array.shape.size();
  const int64_t count = array.size();
  if (rank < 2 || count == 0) return;  // 0-d and 1-d arrays are laid out the same either way
  std::vector<int64_t> stride(rank), index(rank, 0);
  int64_t s = 1;
  for (size_t j = 0; j < rank; ++j) {
    stride[j] = s;
    s *= array.shape[j];
  }
  std::vector<uint8_t> out(array.data.size());
  int64_t source = 0;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(&out[i * kItem], &array.data[source * kItem], kItem);
    for (size_t j = rank; j-- > 0;) {
      if (++index[j] < array.shape[j]) {
        source += stride[j];
        break;
      }
      source -= stride[j] * (array.shape[j] - 1);
      index[j] = 0;
    }
  }
  array.data.swap(out);
}

}  // namespace

size_t dtype_size(DType dtype) { return info(dtype).size; }

std::string dtype_descr(DType dtype) {
  const DTypeInfo& d = info(dtype);
  return std::string(d.size == 1 ? "|" : "<") + d.kind + std::to_string(d.size);
}

std::string dtype_name(DType dtype) { return info(dtype).name; }

bool dtype_is_integer(DType dtype) { return info(dtype).kind != 'f'; }

bool dtype_is_float(DType dtype) { return info(dtype).kind == 'f'; }

float half_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t out;
  if (exponent == 31) {
    out = sign | 0x7f800000u | (mantissa << 13);  // inf or nan
  } else {
    out = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &out, sizeof(value));
  return value;
}

int64_t NpyArray::size() const {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

template <typename T>
std::vector<T> NpyArray::to_vector(const std::string& context) const {
  const int64_t count = size();
  if (static_cast<int64_t>(data.size()) != count * static_cast<int64_t>(dtype_size(dtype))) {
    throw Error(context, "", "array data size does not match its shape");
  }
  std::vector<T> out(count);
  const uint8_t* p = data.data();
  switch (dtype) {
    case DType::Bool:
      convert_all<T, uint8_t>(p, count, context, out.data());
      break;
    case DType::Int8:
      convert_all<T, int8_t>(p, count, context, out.data());
      break;
    case DType::Int16:
      convert_all<T, int16_t>(p, count, context, out.data());
      break;
    case DType::Int32:
      convert_all<T, int32_t>(p, count, context, out.data());
      break;
    case DType::Int64:
      convert_all<T, int64_t>(p, count, context, out.data());
      break;
    case DType::UInt8:
      convert_all<T, uint8_t>(p, count, context, out.data());
      break;
    case DType::UInt16:
      convert_all<T, uint16_t>(p, count, context, out.data());
      break;
    case DType::UInt32:
      convert_all<T, uint32_t>(p, count, context, out.data());
      break;
    case DType::UInt64:
      convert_all<T, uint64_t>(p, count, context, out.data());
      break;
    case DType::Float16:
      convert_half<T>(p, count, context, out.data());
      break;
    case DType::Float32:
      convert_all<T, float>(p, count, context, out.data());
      break;
    case DType::Float64:
      convert_all<T, double>(p, count, context, out.data());
      break;
  }
  return out;
}

template <typename T>
NpyArray make_array(const std::vector<T>& values, std::vector<int64_t> shape) {
  NpyArray array;
  if constexpr (std::is_same_v<T, bool>)
    array.dtype = DType::Bool;
  else if constexpr (std::is_same_v<T, int8_t>)
    array.dtype = DType::Int8;
  else if constexpr (std::is_same_v<T, int16_t>)
    array.dtype = DType::Int16;
  else if constexpr (std::is_same_v<T, int32_t>)
    array.dtype = DType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>)
    array.dtype = DType::Int64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    array.dtype = DType::UInt8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    array.dtype = DType::UInt16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    array.dtype = DType::UInt32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    array.dtype = DType::UInt64;
  else if constexpr (std::is_same_v<T, float>)
    array.dtype = DType::Float32;
  else
    array.dtype = DType::Float64;
  array.shape = std::move(shape);
  if (array.size() != static_cast<int64_t>(values.size())) {
    throw Error("make_array", "",
                "shape " + shape_text(array.shape) + " does not hold " +
                    std::to_string(values.size()) + " values");
  }
  array.data.resize(values.size() * sizeof(T));
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < values.size(); ++i) array.data[i] = values[i] ? 1 : 0;
  } else if (!values.empty()) {
    std::memcpy(array.data.data(), values.data(), array.data.size());
  }
  return array;
}

NpyArray parse_npy_header(const uint8_t* bytes, size_t size, const std::string& context,
                          size_t* header_bytes) {
  bool fortran_order = false;
  return parse_npy_header(bytes, size, context, header_bytes, &fortran_order);
}

NpyArray parse_npy_header(const uint8_t* bytes, size_t size, const std::string& context,
                          size_t* header_bytes, bool* fortran_order) {
  if (size < kMagicBytes + 4 || std::memcmp(bytes, kMagic, kMagicBytes) != 0) {
    throw Error(context, "", "not a .npy array (bad magic or too short)");
  }
  const int major = bytes[6];
  size_t prefix, length;
  if (major == 1) {
    prefix = 10;
    length = bytes[8] | (static_cast<size_t>(bytes[9]) << 8);
  } else if (major == 2 || major == 3) {
    prefix = 12;
    if (size < prefix) throw Error(context, "", "truncated .npy header");
    length = 0;
    for (int i = 3; i >= 0; --i) length = (length << 8) | bytes[8 + i];
  } else {
    throw Error(context, "", "unsupported .npy format version " + std::to_string(major));
  }
  if (size - prefix < length)
    throw Error(context, "",
                "the version " + std::to_string(major) + " header says it is " +
                    std::to_string(length) + " bytes long, but " + std::to_string(size - prefix) +
                    " follow: a truncated array, or a version byte that does not match its header");
  const std::string text(reinterpret_cast<const char*>(bytes + prefix), length);
  NpyArray array = HeaderParser(text, context).parse(fortran_order);
  checked_size(array.shape, dtype_size(array.dtype), context);
  *header_bytes = prefix + length;
  return array;
}

NpyArray parse_npy(const uint8_t* bytes, size_t size, const std::string& context) {
  size_t header_bytes = 0;
  bool fortran_order = false;
  NpyArray array = parse_npy_header(bytes, size, context, &header_bytes, &fortran_order);
  const uint64_t expected = static_cast<uint64_t>(array.size()) * dtype_size(array.dtype);
  const uint64_t actual = size - header_bytes;
  if (actual != expected) {
    throw Error(context, "",
                "data holds " + std::to_string(actual) + " bytes but shape " +
                    shape_text(array.shape) + " of " + dtype_name(array.dtype) + " needs " +
                    std::to_string(expected));
  }
  array.data.assign(bytes + header_bytes, bytes + size);
  if (fortran_order) fortran_to_c_order(array);
  return array;
}

void fortran_to_c_order(NpyArray& array) {
  switch (dtype_size(array.dtype)) {
    case 1:
      reorder_fortran<1>(array);
      break;
    case 2:
      reorder_fortran<2>(array);
      break;
    case 4:
      reorder_fortran<4>(array);
      break;
    default:
      reorder_fortran<8>(array);
      break;
  }
}

std::string serialize_npy(const NpyArray& array) {
  std::string header = "{'descr': '" + dtype_descr(array.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_text(array.shape) + ", }";
  // Pad with spaces and end with a newline so magic + version + length + header is aligned.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((kAlignment - unpadded % kAlignment) % kAlignment, ' ');
  header += '\n';
  std::string out(kMagic, kMagicBytes);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(array.data.data()), array.data.size());
  return out;
}

#define GRAPHCOST_NPY_INSTANTIATE(T)                                                \
  template std::vector<T> NpyArray::to_vector<T>(const std::string& context) const; \
  template NpyArray make_array<T>(const std::vector<T>& values, std::vector<int64_t> shape);
GRAPHCOST_NPY_INSTANTIATE(int8_t)
GRAPHCOST_NPY_INSTANTIATE(int16_t)
GRAPHCOST_NPY_INSTANTIATE(int32_t)
GRAPHCOST_NPY_INSTANTIATE(int64_t)
GRAPHCOST_NPY_INSTANTIATE(uint8_t)
GRAPHCOST_NPY_INSTANTIATE(uint16_t)
GRAPHCOST_NPY_INSTANTIATE(uint32_t)
GRAPHCOST_NPY_INSTANTIATE(uint64_t)
GRAPHCOST_NPY_INSTANTIATE(float)
GRAPHCOST_NPY_INSTANTIATE(double)
#undef GRAPHCOST_NPY_INSTANTIATE
template NpyArray make_array<bool>(const std::vector<bool>& values, std::vector<int64_t> shape);

}  // namespace graphcost::io
