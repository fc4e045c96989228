#include "core/option_table.h"

#include <cmath>
#include <limits>

namespace graphcost {

namespace {

std::string type_name(const nlohmann::json& value) {
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

[[noreturn]] void wrong_type(const nlohmann::json& value, const std::string& expected,
                             const std::string& where, const std::string& key) {
  std::string shown = value.dump();
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  throw Error(where, key, "wrong type: expected " + expected + ", got " + type_name(value) + " " + shown);
}

// An integer field: the value must be an integer (1e3 as a float is one) within T's range.
template <typename T>
void read_integer(const nlohmann::json& value, T& out, const std::string& where,
                  const std::string& key) {
  if (!value.is_number()) wrong_type(value, "an integer", where, key);
  constexpr T low = std::numeric_limits<T>::min(), high = std::numeric_limits<T>::max();
  bool fits = false;
  if (value.is_number_unsigned()) {
    fits = value.get<uint64_t>() <= static_cast<uint64_t>(high);
  } else if (value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    if constexpr (std::is_signed_v<T>) {
      fits = v >= low && v <= high;
    } else {
      fits = v >= 0 && static_cast<uint64_t>(v) <= high;
    }
  } else {
    const double d = value.get<double>();
    fits = d == std::floor(d) && d >= static_cast<double>(low) && d < static_cast<double>(high);
  }
  if (!fits)
    throw Error(where, key,
                "expected an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
                    "], got " + value.dump());
  out = value.is_number_float() ? static_cast<T>(value.get<double>()) : value.get<T>();
}

}  // namespace

void read_option_value(const nlohmann::json& value, bool& out, const std::string& where,
                       const std::string& key) {
  if (!value.is_boolean()) wrong_type(value, "true or false", where, key);
  out = value.get<bool>();
}

void read_option_value(const nlohmann::json& value, int& out, const std::string& where,
                       const std::string& key) {
  read_integer(value, out, where, key);
}

void read_option_value(const nlohmann::json& value, int64_t& out, const std::string& where,
                       const std::string& key) {
  read_integer(value, out, where, key);
}

void read_option_value(const nlohmann::json& value, uint64_t& out, const std::string& where,
                       const std::string& key) {
  read_integer(value, out, where, key);
}

void read_option_value(const nlohmann::json& value, double& out, const std::string& where,
                       const std::string& key) {
  if (!value.is_number()) wrong_type(value, "a number", where, key);
  out = value.get<double>();
}

void read_option_value(const nlohmann::json& value, std::string& out, const std::string& where,
                       const std::string& key) {
  if (!value.is_string()) wrong_type(value, "a string", where, key);
  out = value.get<std::string>();
}

void read_option_value(const nlohmann::json& value, std::vector<std::string>& out,
                       const std::string& where, const std::string& key) {
  bool strings = value.is_array();
  for (const auto& item : value) strings = strings && item.is_string();
  if (!strings) wrong_type(value, "an array of strings", where, key);
  out = value.get<std::vector<std::string>>();
}

void read_option_value(const nlohmann::json& value, std::vector<int64_t>& out,
                       const std::string& where, const std::string& key) {
  if (!value.is_array()) wrong_type(value, "an array of integers", where, key);
  std::vector<int64_t> read(value.size());
  for (size_t i = 0; i < value.size(); ++i) read_integer(value[i], read[i], where, key);
  out = std::move(read);
}

std::vector<std::string> differing_keys(const nlohmann::json& a, const nlohmann::json& b,
                                        const std::string& prefix) {
  if (!a.is_object() || !b.is_object()) {
    if (a == b) return {};
    return {prefix};
  }
  std::vector<std::string> out;
  nlohmann::json keys = a;
  keys.update(b);  // the union of both objects' keys
  for (const auto& [key, _] : keys.items()) {
    const nlohmann::json none;
    const nlohmann::json& x = a.contains(key) ? a[key] : none;
    const nlohmann::json& y = b.contains(key) ? b[key] : none;
    for (std::string& k : differing_keys(x, y, prefix.empty() ? key : prefix + "." + key))
      out.push_back(std::move(k));
  }
  return out;
}

std::vector<std::string> option_choices(const char* choices) {
  std::vector<std::string> out;
  if (choices == nullptr) return out;
  std::string item;
  for (const char* c = choices;; ++c) {
    if (*c == ',' || *c == '\0') {
      out.push_back(item);
      item.clear();
      if (*c == '\0') break;
    } else {
      item += *c;
    }
  }
  return out;
}

std::string check_option_choice(const char* choices, const std::string& value) {
  const std::vector<std::string> valid = option_choices(choices);
  if (valid.empty()) return "";
  std::string listed;
  for (const std::string& choice : valid) {
    if (choice == value) return "";
    listed += (listed.empty() ? "" : ", ") + choice;
  }
  return "unknown value \"" + value + "\" (valid: " + listed + ")";
}

std::string flag_of_key(const std::string& key) {
  std::string flag = "--" + key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

}  // namespace graphcost
