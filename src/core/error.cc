#include "core/error.h"

namespace graphcost {

namespace {
std::string compose(const std::string& where, const std::string& key, const std::string& problem) {
  std::string message = where;
  if (!key.empty()) message += ": " + key;
  message += ": " + problem;
  return message;
}
}  // namespace

Error::Error(const std::string& where, const std::string& key, const std::string& problem)
    : std::runtime_error(compose(where, key, problem)), where_(where), key_(key) {}

Error::Error(const std::string& message) : std::runtime_error(message) {}

}  // namespace graphcost
