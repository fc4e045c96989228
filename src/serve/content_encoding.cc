#include "serve/content_encoding.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

#include "serve/http_error.h"

namespace graphcost::serve {

namespace {

std::string lower_trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  std::string out = text.substr(first, text.find_last_not_of(" \t") + 1 - first);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Inflates with zlib's window_bits (31: gzip; 15: zlib; -15: raw DEFLATE). Returns false when
// the stream is not of that format (nothing inflated yet), so deflate can try raw DEFLATE.
bool inflate_bounded(const std::string& in, int window_bits, uint64_t max_bytes,
                     const std::string& encoding, std::string& out) {
  z_stream stream{};
  if (inflateInit2(&stream, window_bits) != Z_OK)
    throw HttpError(kInternalError, "cannot start zlib");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  stream.avail_in = static_cast<uInt>(in.size());  // bodies are far below 4 GiB (--max-body-mb)
  out.clear();
  char chunk[1 << 16];
  int code = Z_OK;
  while (code != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof chunk;
    code = inflate(&stream, Z_NO_FLUSH);
    const size_t produced = sizeof chunk - stream.avail_out;
    if (code == Z_DATA_ERROR && out.empty() && produced == 0 && window_bits == 15) {
      inflateEnd(&stream);
      return false;
    }
    if (code != Z_OK && code != Z_STREAM_END) {
      inflateEnd(&stream);
      throw HttpError(kBadRequest,
                      "Content-Encoding " + encoding + ": damaged or truncated compressed body");
    }
    if (out.size() + produced > max_bytes) {
      inflateEnd(&stream);
      throw HttpError(kPayloadTooLarge,
                      "request body larger than --max-body-mb " + std::to_string(max_bytes >> 20) +
                          " MiB once decompressed (Content-Encoding " + encoding + ")");
    }
    out.append(chunk, produced);
    if (code == Z_OK && produced == 0 && stream.avail_in == 0) {
      inflateEnd(&stream);
      throw HttpError(kBadRequest, "Content-Encoding " + encoding + ": truncated compressed body");
    }
  }
  const bool trailing = stream.avail_in != 0;
  inflateEnd(&stream);
  if (trailing)
    throw HttpError(kBadRequest,
                    "Content-Encoding " + encoding + ": bytes after the compressed body");
  return true;
}

}  // namespace

std::string decode_content(const std::string& encoding, std::string body, uint64_t max_bytes) {
  const std::string coding = lower_trimmed(encoding);
  if (coding.empty() || coding == "identity") return body;
  std::string out;
  if (coding == "gzip" || coding == "x-gzip") {
    inflate_bounded(body, 31, max_bytes, coding, out);
  } else if (coding == "deflate") {
    // RFC 9110 says zlib-wrapped; some clients send raw DEFLATE: take both.
    if (!inflate_bounded(body, 15, max_bytes, coding, out))
      inflate_bounded(body, -15, max_bytes, coding, out);
  } else {
    throw HttpError(kUnsupportedMediaType, "Content-Encoding '" + encoding.substr(0, 60) +
                                               "' not supported (gzip, deflate or identity)");
  }
  return out;
}

}  // namespace graphcost::serve
