// Option field tables: every option of a group (training, model, data) written once, as one row
// of a plain array, from which its JSON (config.json), its checks, its resume rule and its
// command-line flag (cli/option_flags.h) are all derived. Plain C++: no LibTorch, no CLI11.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/error.h"

namespace graphcost {

// A field that is not a plain member of a supported type (an enum stored by its name, a nested
// group): how to write it as JSON and read it back. set throws an Error naming the problem.
template <typename Options>
struct OptionAccessor {
  nlohmann::json (*get)(const Options& options);
  void (*set)(const nlohmann::json& value, Options& options);
};

// Where a field lives in its struct.
template <typename Options>
using OptionMember =
    std::variant<bool Options::*, int Options::*, int64_t Options::*, uint64_t Options::*,
                 double Options::*, std::string Options::*, std::vector<std::string> Options::*,
                 std::vector<int64_t> Options::*, OptionAccessor<Options>>;

// A check of a field's value in its options: "" when fine, else the problem ("must be at least 1").
template <typename Options>
using OptionCheck = std::string (*)(const Options& options);

// One option. The flag is the JSON key with dashes ("prune_hops" -> "--prune-hops"), followed by
// older spellings kept as aliases ("--prune-hops,--prune"); an empty flag means the field is not
// set on the command line (it comes from the data, or from another option).
template <typename Options>
struct OptionField {
  const char* key;
  const char* flags;
  OptionMember<Options> member;
  const char* help;
  OptionCheck<Options> check = nullptr;  // nullptr: any value of the type
  bool may_change_on_resume = false;     // `train --resume` may give it otherwise
  // A string field's only values, comma-separated ("mean,rank"): checked with the field (after
  // `check`), offered by its flag and listed in docs/options.md. nullptr: any string.
  const char* choices = nullptr;
};

// A field's choices as a list (empty when it has none).
std::vector<std::string> option_choices(const char* choices);
// "" when value is one of choices (or there are none), else the problem
// ("unknown value \"x\" (valid: mean, rank)").
std::string check_option_choice(const char* choices, const std::string& value);

// A group's table: a view of a static array of fields.
template <typename Options>
class OptionTable {
 public:
  template <size_t N>
  constexpr OptionTable(const OptionField<Options> (&fields)[N]) : fields_(fields), count_(N) {}
  const OptionField<Options>* begin() const { return fields_; }
  const OptionField<Options>* end() const { return fields_ + count_; }
  // The field with this JSON key, or nullptr.
  const OptionField<Options>* find(const std::string& key) const {
    for (const auto& field : *this)
      if (key == field.key) return &field;
    return nullptr;
  }

 private:
  const OptionField<Options>* fields_;
  size_t count_;
};

// Reads a JSON value into a field's type. An integer must fit the type exactly (nlohmann would
// turn 1e30 or -1 into some integer without a word); a wrong type is an Error(where, key,
// "wrong type: expected ..., got ...").
void read_option_value(const nlohmann::json& value, bool& out, const std::string& where,
                       const std::string& key);
void read_option_value(const nlohmann::json& value, int& out, const std::string& where,
                       const std::string& key);
void read_option_value(const nlohmann::json& value, int64_t& out, const std::string& where,
                       const std::string& key);
void read_option_value(const nlohmann::json& value, uint64_t& out, const std::string& where,
                       const std::string& key);
void read_option_value(const nlohmann::json& value, double& out, const std::string& where,
                       const std::string& key);
void read_option_value(const nlohmann::json& value, std::string& out, const std::string& where,
                       const std::string& key);
void read_option_value(const nlohmann::json& value, std::vector<std::string>& out,
                       const std::string& where, const std::string& key);
void read_option_value(const nlohmann::json& value, std::vector<int64_t>& out,
                       const std::string& where, const std::string& key);

// Writes every field of the table into the JSON object j (other keys of j stay).
template <typename Options>
void write_option_fields(nlohmann::json& j, OptionTable<Options> table, const Options& options) {
  for (const auto& field : table) {
    std::visit(
        [&](const auto& member) {
          using Member = std::decay_t<decltype(member)>;
          if constexpr (std::is_same_v<Member, OptionAccessor<Options>>) {
            j[field.key] = member.get(options);
          } else {
            j[field.key] = options.*member;
          }
        },
        field.member);
  }
}

// Reads one key into its field; false when the table has no such key. Errors name where and key.
template <typename Options>
bool read_option_field(OptionTable<Options> table, const std::string& key,
                       const nlohmann::json& value, Options& options, const std::string& where) {
  const OptionField<Options>* field = table.find(key);
  if (field == nullptr) return false;
  std::visit(
      [&](const auto& member) {
        using Member = std::decay_t<decltype(member)>;
        if constexpr (std::is_same_v<Member, OptionAccessor<Options>>) {
          member.set(value, options);
        } else {
          read_option_value(value, options.*member, where, key);
        }
      },
      field->member);
  return true;
}

// Reads every key of the JSON object j into its field over the current values; j not an object,
// a key the table lacks or a wrong type is an Error(where, key, problem). Values are not checked.
template <typename Options>
void read_option_fields(OptionTable<Options> table, const nlohmann::json& j, Options& options,
                        const std::string& where) {
  if (!j.is_object()) throw Error(where, "", "expected a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (!read_option_field(table, key, value, options, where))
      throw Error(where, key, "unknown key");
  }
}

// Checks every field in table order; the first bad one is an Error(where, key, problem).
template <typename Options>
void check_option_fields(OptionTable<Options> table, const Options& options,
                         const std::string& where) {
  for (const auto& field : table) {
    if (field.check != nullptr) {
      const std::string problem = field.check(options);
      if (!problem.empty()) throw Error(where, field.key, problem);
    }
    if (field.choices == nullptr) continue;
    if (const auto* member = std::get_if<std::string Options::*>(&field.member)) {
      const std::string problem = check_option_choice(field.choices, options.*(*member));
      if (!problem.empty()) throw Error(where, field.key, problem);
    }
  }
}

// Copies the fields that may change on resume from `given` into `stored`.
template <typename Options>
void copy_resume_free_fields(OptionTable<Options> table, const Options& given, Options& stored) {
  for (const auto& field : table) {
    if (!field.may_change_on_resume) continue;
    std::visit(
        [&](const auto& member) {
          using Member = std::decay_t<decltype(member)>;
          if constexpr (std::is_same_v<Member, OptionAccessor<Options>>) {
            member.set(member.get(given), stored);
          } else {
            stored.*member = given.*member;
          }
        },
        field.member);
  }
}

// The JSON keys of the fields that may change on resume, in table order.
template <typename Options>
std::vector<std::string> resume_free_keys(OptionTable<Options> table) {
  std::vector<std::string> keys;
  for (const auto& field : table)
    if (field.may_change_on_resume) keys.push_back(field.key);
  return keys;
}

// The dotted keys ("model.hidden") whose values differ between two JSON objects.
std::vector<std::string> differing_keys(const nlohmann::json& a, const nlohmann::json& b,
                                        const std::string& prefix = "");

// "--" and the key with dashes: the flag named after a JSON key.
std::string flag_of_key(const std::string& key);

}  // namespace graphcost
