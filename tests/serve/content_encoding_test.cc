// serve::decode_content: gzip, zlib and raw deflate bodies inflated exactly up to the bound and
// no further, damaged streams and unknown codings refused with their status.
#include "serve/content_encoding.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "compressed.h"
#include "serve/http_error.h"

namespace graphcost::serve {
namespace {

using graphcost::testing::compressed;

// The status decode_content refuses with, or 0.
int refusal(const std::string& encoding, const std::string& body, uint64_t max_bytes) {
  try {
    decode_content(encoding, body, max_bytes);
  } catch (const HttpError& e) {
    return e.status();
  }
  return 0;
}

TEST(ContentEncoding, IdentityAndNoCodingPassTheBodyThrough) {
  EXPECT_EQ(decode_content("", "abc", 1), "abc");  // the transport bounds what was sent
  EXPECT_EQ(decode_content(" Identity ", "abc", 1), "abc");
}

TEST(ContentEncoding, GzipZlibAndRawDeflateAreInflated) {
  const std::string text(100000, 'x');
  EXPECT_EQ(decode_content("gzip", compressed(text, 31), text.size()), text);
  EXPECT_EQ(decode_content("GZIP", compressed(text, 31), text.size()), text);
  EXPECT_EQ(decode_content("deflate", compressed(text, 15), text.size()), text);
  EXPECT_EQ(decode_content("deflate", compressed(text, -15), text.size()), text);
  EXPECT_EQ(decode_content("gzip", compressed("", 31), 0), "");
}

TEST(ContentEncoding, InflatingStopsPastTheBound) {
  const std::string bomb = compressed(std::string(100000, 'x'), 31);
  EXPECT_EQ(refusal("gzip", bomb, 100000), 0);
  EXPECT_EQ(refusal("gzip", bomb, 99999), kPayloadTooLarge);
  EXPECT_EQ(refusal("deflate", compressed(std::string(100000, 'x'), -15), 99999), kPayloadTooLarge);
}

TEST(ContentEncoding, DamagedStreamsAndUnknownCodingsAreRefused) {
  const std::string good = compressed(std::string(1000, 'x') + "tail", 31);
  EXPECT_EQ(refusal("gzip", good.substr(0, good.size() / 2), 1 << 20), kBadRequest);
  EXPECT_EQ(refusal("gzip", good + "extra", 1 << 20), kBadRequest);
  EXPECT_EQ(refusal("gzip", "not gzip at all", 1 << 20), kBadRequest);
  EXPECT_EQ(refusal("gzip", "", 1 << 20), kBadRequest);
  EXPECT_EQ(refusal("br", "abc", 1 << 20), kUnsupportedMediaType);
  EXPECT_EQ(refusal("gzip, gzip", good, 1 << 20), kUnsupportedMediaType);
}

}  // namespace
}  // namespace graphcost::serve
