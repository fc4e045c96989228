// Errors with context. User and data errors throw graphcost::Error, which carries where
// the problem is (a file, and optionally a key inside it) and what was wrong; the CLI
// prints its what() as one line and exits non-zero. Invariants of our own code use assert.
#pragma once

#include <stdexcept>
#include <string>

namespace graphcost {

class Error : public std::runtime_error {
 public:
  // what() reads "<where>: <key>: <problem>" (the key part only when key is non-empty).
  Error(const std::string& where, const std::string& key, const std::string& problem);
  explicit Error(const std::string& message);

  const std::string& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  std::string where_;
  std::string key_;
};

// Throws Error(where, key, problem) when condition is false.
inline void check_data(bool condition, const std::string& where, const std::string& key,
                       const std::string& problem) {
  if (!condition) throw Error(where, key, problem);
}

}  // namespace graphcost
