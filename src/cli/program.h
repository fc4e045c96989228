// The graphcost program around its commands: the process settings, the command line, and one
// error line and an exit status for every failure. main.cc gives it every command; the
// torch-free test program (tests/cli/torch_free_main.cc) only the torch-free ones.
#pragma once

#include <CLI/CLI.hpp>

#include <vector>

namespace graphcost::cli {

// A function that adds one subcommand (commands.h).
using AddCommand = void (*)(CLI::App&);

// Runs `graphcost argv...` with `commands` (added in this order, which --help keeps) and returns
// the exit status: 0, 1 for an error of the command, CLI11's status for a bad command line, 2
// for an unknown command word.
int run_program(int argc, char** argv, const std::vector<AddCommand>& commands);

// Every command graphcost has, in the order --help lists them (every_command.cc, built in
// graphcost_program: it names the LibTorch commands too).
const std::vector<AddCommand>& every_command();

// The commands that need no LibTorch (synth, inspect, pack, split, ingest, xgb, submit, score,
// noise, report), in the order graphcost lists them; built in graphcost_cli_base.
const std::vector<AddCommand>& torch_free_commands();
// Their command words, for tests that choose the program to start.
const std::vector<std::string>& torch_free_command_names();

}  // namespace graphcost::cli
