// Request bodies sent with a Content-Encoding: gzip and deflate are inflated with zlib, never
// past a bound, so a small compressed body cannot grow into a large one (a gzip bomb).
#pragma once

#include <cstdint>
#include <string>

namespace graphcost::serve {

// The body as sent before `encoding` (the Content-Encoding header's value; empty or "identity":
// the body itself). gzip and deflate (zlib, or raw DEFLATE) are inflated; decoding stops with an
// HttpError 413 as soon as the output passes max_bytes. Another coding is a 415, a damaged or
// truncated stream a 400.
std::string decode_content(const std::string& encoding, std::string body, uint64_t max_bytes);

}  // namespace graphcost::serve
