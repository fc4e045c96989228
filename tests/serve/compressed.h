// Test bodies compressed with zlib: one helper for the serve tests that send compressed bodies.
#pragma once

#include <zlib.h>

#include <string>

namespace graphcost::testing {

// text compressed with zlib's window_bits (31: gzip, 15: zlib, -15: raw DEFLATE).
inline std::string compressed(const std::string& text, int window_bits) {
  z_stream stream{};
  deflateInit2(&stream, 9, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, text.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace graphcost::testing
