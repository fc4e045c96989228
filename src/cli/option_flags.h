// Command-line flags derived from option field tables (core/option_table.h): a field's flag
// names (the JSON key with dashes first, older spellings after it as aliases), its help, the
// default shown and the integer range checks all come from its table row.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "cli/commands.h"
#include "core/option_table.h"
#include "data/data_options.h"
#include "train/options.h"

namespace graphcost::cli {

// Adds one field's option to command, writing into value: a bool that is off by default is a
// switch (`--attention`, `--attention=false`), one that is on takes a value (`--share-rows
// false`); 64-bit integers are range-checked; the default (value's current one) is shown.
template <typename T>
struct IsVector : std::false_type {};
template <typename T, typename Allocator>
struct IsVector<std::vector<T, Allocator>> : std::true_type {};

// A list's default as it is typed ("146 146 146 146"; nothing when empty). CLI11's own text for a
// list depends on the headers its translation unit sees: with LibTorch's it is this, without them
// "[146,146,146,146]" and "[]". Spelled out, it is the same in graphcost and in the torch-free
// program (graphcost_cli_base), and no longer depends on which copy of CLI11's template the
// linker keeps.
template <typename T>
std::string list_default_text(const std::vector<T>& value) {
  std::string text;
  for (const T& item : value) text += (text.empty() ? "" : " ") + CLI::detail::to_string(item);
  return text;
}

template <typename T>
CLI::Option* add_field_option(CLI::App* command, const std::string& flags,
                              const std::string& help, T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!value) return command->add_flag(flags, value, help);
  }
  CLI::Option* option = command->add_option(flags, value, help);
  if constexpr (IsVector<T>::value) {
    option->default_str(list_default_text(value));
  } else {
    option->capture_default_str();
  }
  if constexpr (std::is_same_v<T, int64_t>) option->check(signed_64());
  if constexpr (std::is_same_v<T, uint64_t>) option->check(unsigned_64());
  return option;
}

// Marks option as bound from a table row (field: the row's address): a validator that accepts
// every value, named after the row, by which options_reference (cli/options_reference.h) finds
// the commands that take each row. Changes neither parsing nor --help.
void tag_option_field(CLI::Option* option, const void* field);
// True when option was bound from the row at field.
bool option_has_field(CLI::Option* option, const void* field);

// Adds the option of one table row (add_field_option with the row's flags, help unless `help`
// is given, and choices), tagged with the row.
template <typename Options, typename T>
CLI::Option* add_table_option(CLI::App* command, const OptionField<Options>& field, T& value,
                              const std::string& help = "") {
  CLI::Option* option =
      add_field_option(command, field.flags, help.empty() ? field.help : help, value);
  if (field.choices != nullptr) option->check(CLI::IsMember(option_choices(field.choices)));
  tag_option_field(option, &field);
  return option;
}

// Flags that override options read from elsewhere (train: --config, or a resumed run's stored
// options): apply() writes a field only when its flag was given.
template <typename Root>
class OptionFlags {
 public:
  explicit OptionFlags(CLI::App* command) : command_(command) {}

  // Binds every field of table that has a flag; part(root) is the group's struct in Root, and
  // defaults its default values (shown in --help).
  template <typename Options>
  void add(OptionTable<Options> table, Options& (*part)(Root&), const Options& defaults) {
    for (const auto& field : table) {
      if (field.flags[0] == '\0') continue;
      std::visit(
          [&](const auto& member) {
            using Member = std::decay_t<decltype(member)>;
            if constexpr (!std::is_same_v<Member, OptionAccessor<Options>>) {
              using T = std::decay_t<decltype(defaults.*member)>;
              auto value = std::make_shared<T>(defaults.*member);
              CLI::Option* option = add_table_option(command_, field, *value);
              options_[field.key] = option;
              appliers_.push_back([option, value, member, part](Root& root) {
                if (option->count() > 0) part(root).*member = *value;
              });
            }
          },
          field.member);
    }
  }

  void apply(Root& root) const {
    for (const auto& apply_one : appliers_) apply_one(root);
  }

  // The JSON keys whose flags were given, in key order.
  std::vector<std::string> given_keys() const {
    std::vector<std::string> keys;
    for (const auto& [key, option] : options_)
      if (option->count() > 0) keys.push_back(key);
    return keys;
  }

  // The option bound for a JSON key (nullptr when none).
  CLI::Option* option(const std::string& key) const {
    const auto it = options_.find(key);
    return it == options_.end() ? nullptr : it->second;
  }

 private:
  CLI::App* command_;
  std::vector<std::function<void(Root&)>> appliers_;
  std::map<std::string, CLI::Option*> options_;
};

// `train`'s flags: every field with a flag of its three groups (data, training, model), by its
// config.json key.
void add_train_option_flags(OptionFlags<train::TrainOptions>& flags);

// The shared data group (data/data_options.h) on a command that reads a collection: the flags of
// the given keys (in that order), writing into options, whose current values are the defaults
// shown. help replaces a key's help from the table (what the option means for this command).
// Returns the options by key.
std::map<std::string, CLI::Option*> add_data_options(
    CLI::App* command, data::DataOptions& options, const std::vector<std::string>& keys,
    const std::map<std::string, std::string>& help = {});

// --threads, the same on every command: `what` says what the threads do; <= 0 means all cores.
CLI::Option* add_threads_option(CLI::App* command, int& threads, const std::string& what);
// --precision for a command that scores: the model's products in fp32 or bf16
// (model/kernels/precision.h), checked against the two names.
CLI::Option* add_precision_option(CLI::App* command, std::string& precision);

}  // namespace graphcost::cli
