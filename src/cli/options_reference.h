// docs/options.md, generated from the option field tables (core/option_table.h): for every
// table (data, training, model, scoring, XGBoost and its features) a row per field with its JSON
// key, flag, type, default, allowed values, help, the commands that take it and, for the tables
// `train --resume` reads, whether a resumed run may change it. The commands are found in the
// program itself: each option bound from a table row carries the row's tag (tag_option_field).
// `graphcost options-reference` prints it; a ctest compares it with the checked-in copy.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace graphcost::cli {

// The markdown reference of every option table, the commands taken from program's subcommands
// (nested ones named by their path, "xgb train").
std::string options_reference(CLI::App& program);

// The hidden `options-reference` command: prints options_reference of the program it is added
// to (after every other command), or writes it to --out.
void add_options_reference_command(CLI::App& app);

}  // namespace graphcost::cli
