// NumPy .npy arrays: parsing, serialisation and dtype conversion. Little-endian; dtypes bool,
// int8-64, uint8-64, float16/32/64; anything else is a clear Error. Fortran-order data (the
// release stores some node_feat that way) is reordered on parse: NpyArray is always C order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphcost::io {

enum class DType {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  Float32,
  Float64
};

// Size of one element in bytes.
size_t dtype_size(DType dtype);
// NumPy descr string, e.g. "<f4", "|u1", "|b1".
std::string dtype_descr(DType dtype);
// Human name, e.g. "float32".
std::string dtype_name(DType dtype);
bool dtype_is_integer(DType dtype);  // bool counts as integer
bool dtype_is_float(DType dtype);
// IEEE 754 binary16 bits to float (exact: every half value is a float).
float half_to_float(uint16_t bits);
// Python tuple notation of a shape, e.g. "(3, 4)", "(5,)", "()".
std::string shape_text(const std::vector<int64_t>& shape);

struct NpyArray {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // size() * dtype_size(dtype) bytes, C order

  int64_t size() const;  // product of shape (1 for a 0-d array)
  int64_t dim(size_t axis) const { return shape.at(axis); }

  // Converts every element to T (integers exactly; float16 widened; a float converted to an
  // integer type must be integral and in range, else Error(context, ...)). Also an Error: an
  // integer out of T's range. T in int8..int64, uint8..uint64, float, double.
  template <typename T>
  std::vector<T> to_vector(const std::string& context) const;
};

// Builds an array from typed values (T in int8..int64, uint8..uint64, float, double, bool).
template <typename T>
NpyArray make_array(const std::vector<T>& values, std::vector<int64_t> shape);

// Parses a whole .npy file image. context names the source in errors ("file.npz: node_feat").
NpyArray parse_npy(const uint8_t* bytes, size_t size, const std::string& context);

// Parses only the header; returns dtype and shape and sets header_bytes to the data offset.
NpyArray parse_npy_header(const uint8_t* bytes, size_t size, const std::string& context,
                          size_t* header_bytes);
// The same, also telling whether the data that follows is in Fortran (column-major) order.
NpyArray parse_npy_header(const uint8_t* bytes, size_t size, const std::string& context,
                          size_t* header_bytes, bool* fortran_order);

// Reorders array.data from Fortran to C order in place (shape unchanged).
void fortran_to_c_order(NpyArray& array);

// Serialises to a .npy (format version 1.0) image that numpy.load reads.
std::string serialize_npy(const NpyArray& array);

}  // namespace graphcost::io
