#include "cli/options_reference.h"

#include <iostream>
#include <map>
#include <type_traits>
#include <variant>
#include <vector>

#include "cli/option_flags.h"
#include "core/atomic_file.h"
#include "data/data_options.h"
#include "infer/scoring_options.h"
#include "model/options/model_options.h"
#include "train/options.h"
#include "xgb/options.h"

namespace graphcost::cli {

namespace {

// Every command of program with its path ("xgb train"), in the order --help lists them.
void list_commands(CLI::App* app, const std::string& path,
                   std::vector<std::pair<std::string, CLI::App*>>& out) {
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    const std::string name = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    out.emplace_back(name, sub);
    list_commands(sub, name, out);
  }
}

// A table cell: | inside text would end the cell.
std::string table_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string code_span(const std::string& text) { return text.empty() ? "" : "`" + text + "`"; }

template <typename Options, typename Member>
std::string field_type_name(const Member&, const nlohmann::json& default_value) {
  if constexpr (std::is_same_v<Member, bool Options::*>) return "boolean";
  if constexpr (std::is_same_v<Member, int Options::*> ||
                std::is_same_v<Member, int64_t Options::*>)
    return "integer";
  if constexpr (std::is_same_v<Member, uint64_t Options::*>) return "integer >= 0";
  if constexpr (std::is_same_v<Member, double Options::*>) return "number";
  if constexpr (std::is_same_v<Member, std::string Options::*>) return "string";
  if constexpr (std::is_same_v<Member, std::vector<std::string> Options::*>)
    return "list of strings";
  if constexpr (std::is_same_v<Member, std::vector<int64_t> Options::*>) return "list of integers";
  if constexpr (std::is_same_v<Member, OptionAccessor<Options>>)
    return default_value.is_object() ? "object" : default_value.is_string() ? "name" : "value";
  return "value";
}

// "`--prune-hops` (also `--prune`)"; "" for a field without a flag.
std::string flag_text(const char* flags) {
  std::vector<std::string> names;
  std::string name;
  for (const char* c = flags;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!name.empty()) names.push_back(name);
      name.clear();
      if (*c == '\0') break;
    } else {
      name += *c;
    }
  }
  if (names.empty()) return "";
  std::string text = code_span(names[0]);
  for (size_t i = 1; i < names.size(); ++i)
    text += (i == 1 ? " (also " : ", ") + code_span(names[i]) + (i + 1 == names.size() ? ")" : "");
  return text;
}

struct Section {
  std::string title;
  std::string source;  // the header that declares the table
  std::string intro;
  bool resume = false;  // the table has a resume rule
};

template <typename Options>
void write_table(std::string& out, const Section& section, OptionTable<Options> table,
                 const Options& defaults,
                 const std::vector<std::pair<std::string, CLI::App*>>& commands) {
  nlohmann::json default_json;
  write_option_fields(default_json, table, defaults);
  out += "## " + section.title + "\n\n";
  out += "Declared in `" + section.source + "`. " + section.intro + "\n\n";
  out += "| key | flag | type | default | allowed | commands |";
  out += section.resume ? " on resume |" : "";
  out += " description |\n|---|---|---|---|---|---|";
  out += section.resume ? "---|" : "";
  out += "---|\n";
  for (const auto& field : table) {
    std::string taken;
    for (const auto& [name, app] : commands) {
      bool takes = false;
      for (CLI::Option* option : app->get_options())
        takes = takes || option_has_field(option, &field);
      if (takes) taken += (taken.empty() ? "" : ", ") + name;
    }
    const nlohmann::json& value = default_json[field.key];
    std::string allowed;
    for (const std::string& choice : option_choices(field.choices))
      allowed += (allowed.empty() ? "" : ", ") + code_span(choice);
    const std::string type = std::visit(
        [&](const auto& member) { return field_type_name<Options>(member, value); }, field.member);
    out += "| " + code_span(field.key) + " | " + flag_text(field.flags) + " | " + type + " | " +
           (value.is_object() ? std::string("(its table)") : table_cell(code_span(value.dump()))) +
           " | " + allowed + " | " + taken + " |";
    if (section.resume) out += field.may_change_on_resume ? " may change |" : " fixed |";
    out += " " + table_cell(field.help) + " |\n";
  }
  out += "\n";
}

}  // namespace

std::string options_reference(CLI::App& program) {
  std::vector<std::pair<std::string, CLI::App*>> commands;
  list_commands(&program, "", commands);
  std::string out =
      "# Option reference\n\n"
      "<!-- Generated from the option field tables by `graphcost options-reference`; do not edit.\n"
      "     Regenerate with `cmake --build build --target options_doc`. -->\n\n"
      "Every option group of graphcost is one field table (`src/core/option_table.h`): a row per\n"
      "field gives its JSON key (in `config.json`), its flag (the key with dashes, then older\n"
      "spellings), its help and its check, and this page is generated from the rows. The default\n"
      "is the table's; a command may start from its own (eval reads the `valid` split), which its\n"
      "`--help` shows. A field without a flag comes from the data or from another option.\n"
      "`commands` lists the commands whose flag writes the field. The tables `train --resume`\n"
      "reads say which fields a resumed run may change; the others must be given as stored.\n\n"
      "What the model options do, and how they combine: [model-architecture.md]"
      "(model-architecture.md).\n\n";
  write_table(out,
              {"Data options", "src/data/data_options.h",
               "Which data a command reads and how; training stores them at the top level of "
               "`config.json`, and eval and predict read the collection and pruning a run was "
               "trained with from there.",
               true},
              data::data_option_fields(), data::DataOptions{}, commands);
  write_table(
      out,
      {"Training options", "src/train/options.h",
       "How `train` trains (the top level of `config.json`, beside the data options).", true},
      train::train_option_fields(), train::TrainOptions{}, commands);
  write_table(out,
              {"Model options", "src/model/options/model_options.h",
               "The cost model's shape: the `model` object of `config.json`, stored in "
               "`model.pt` too.",
               false},
              model::model_option_fields(), model::ModelOptions{}, commands);
  write_table(out,
              {"Scoring options", "src/infer/scoring_options.h",
               "How eval, predict and the Python module (`Model.score(..., mc_samples=...)`) "
               "score trained runs.",
               false},
              infer::scoring_option_fields(), infer::ScoringOptions{}, commands);
  write_table(out,
              {"XGBoost options", "src/xgb/options.h",
               "The XGBoost ranker of `xgb train`: the `xgboost` object of an XGBoost run's "
               "`config.json`.",
               false},
              xgb::xgb_option_fields(), xgb::XgbOptions{}, commands);
  write_table(
      out,
      {"XGBoost feature options", "src/xgb/options.h",
       "The feature rows of the XGBoost ranker: `xgboost.features` in `config.json`.", false},
      xgb::feature_option_fields(), xgb::FeatureOptions{}, commands);
  return out;
}

void add_options_reference_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "options-reference", "Print docs/options.md, the option reference, from the option tables");
  sub->group("");  // hidden: for the build (options_doc) and its test, not for users
  auto out = std::make_shared<std::string>();
  sub->add_option("--out", *out, "Write it to this file instead of printing it");
  sub->callback([sub, out] {
    const std::string text = options_reference(*sub->get_parent());
    if (out->empty()) {
      std::cout << text;
    } else {
      write_file_atomically(*out, text);
    }
  });
}

}  // namespace graphcost::cli
