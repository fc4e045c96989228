// An error that becomes an HTTP response: a status (4xx for the client's input, 5xx for ours)
// and a one-line message naming the problem, sent as {"error": message, "status": status}.
#pragma once

#include <stdexcept>
#include <string>

namespace graphcost::serve {

class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// The statuses the service answers with, by name.
constexpr int kBadRequest = 400;
constexpr int kUnauthorized = 401;
constexpr int kNotFound = 404;
constexpr int kPayloadTooLarge = 413;
constexpr int kUnsupportedMediaType = 415;
constexpr int kRequestHeadersTooLarge = 431;
constexpr int kInternalError = 500;
constexpr int kServiceUnavailable = 503;

}  // namespace graphcost::serve
