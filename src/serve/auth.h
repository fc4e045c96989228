// Bearer-token authentication: the token read once from a file, and a comparison whose time
// does not depend on where a guess first differs from it.
#pragma once

#include <array>
#include <string>

namespace graphcost::serve {

class BearerAuth {
 public:
  BearerAuth() = default;  // no token: every request is let through
  // Reads the token from path (surrounding whitespace dropped). A missing file or an empty
  // token is an Error naming the file; the token itself never appears in a message.
  static BearerAuth from_token_file(const std::string& path);

  bool enabled() const { return enabled_; }
  // True when authentication is off, or `authorization` (the header's value) is
  // "Bearer <token>", the scheme in any case (RFC 9110). The candidate and the token are
  // compared as SHA-256 digests with OpenSSL's CRYPTO_memcmp, so neither their contents nor
  // their lengths steer the time taken.
  bool allows(const std::string& authorization) const;

 private:
  bool enabled_ = false;
  std::array<unsigned char, 32> token_digest_{};
};

}  // namespace graphcost::serve
