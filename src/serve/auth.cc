#include "serve/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cctype>

#include "core/atomic_file.h"
#include "core/error.h"

namespace graphcost::serve {

namespace {

std::array<unsigned char, 32> sha256(const std::string& text) {
  std::array<unsigned char, 32> digest{};
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
      length != digest.size())
    throw Error("serve: SHA-256 failed");
  return digest;
}

}  // namespace

BearerAuth BearerAuth::from_token_file(const std::string& path) {
  std::string token = read_file(path);
  const char* space = " \t\r\n";
  const size_t first = token.find_first_not_of(space);
  check_data(first != std::string::npos, path, "", "the token file is empty");
  token = token.substr(first, token.find_last_not_of(space) + 1 - first);
  BearerAuth auth;
  auth.enabled_ = true;
  auth.token_digest_ = sha256(token);
  return auth;
}

bool BearerAuth::allows(const std::string& authorization) const {
  if (!enabled_) return true;
  // The scheme is case-insensitive (RFC 9110, 11.1); one or more spaces follow it.
  const std::string scheme = "bearer";
  if (authorization.size() <= scheme.size() || authorization[scheme.size()] != ' ') return false;
  for (size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) return false;
  const size_t token = authorization.find_first_not_of(' ', scheme.size());
  if (token == std::string::npos) return false;
  const std::array<unsigned char, 32> digest = sha256(authorization.substr(token));
  return CRYPTO_memcmp(digest.data(), token_digest_.data(), digest.size()) == 0;
}

}  // namespace graphcost::serve
