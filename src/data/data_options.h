// The options that say which data a command reads and how (a collection's source, id, split,
// what to leave out, pruning, Kernel Tuner devices), declared once as a field table (core/option_table.h): training
// records them in config.json under these keys, and every command that reads a collection takes
// its flags from here (cli/option_flags.h, add_data_options).
#pragma once

#include <string>
#include <vector>

#include "core/option_table.h"
#include "data/collection.h"

namespace graphcost::data {

struct DataOptions {
  std::string data;  // dataset root, collection folder, file or pack
  std::string collection = "layout:xla:random";
  std::string split = "train";
  std::vector<std::string> exclude;  // graph names (file stems) left out
  bool skip_invalid = false;         // warn and skip files that fail validation
  // Keep the neighbourhood of configurable nodes (data/prune.h); eval and predict apply a
  // run's pruning to its data.
  int prune_hops = -1;              // -1: no pruning
  std::string prune_seeds = "all";  // "all", "conv-dot-reshape" or HLO opcode names (a,b,...)
  // Kernel Tuner caches (docs/kernel-tuner.md): a device table file extending the built-in one,
  // and the device of a cache whose device_name is empty.
  std::string devices;
  std::string device_name;

  // How a collection is opened with these options (prune_seeds parsed: an unknown opcode name is
  // an Error).
  LoadOptions load_options() const;
  // The same without pruning (skip_invalid, exclude and the Kernel Tuner device options), for
  // readers whose pruning comes from elsewhere (eval, predict and stack take the runs') or that
  // need none (names only, a submission's indices).
  LoadOptions unpruned_load_options() const;
};

// The data options a command that reads a collection starts from, before its flags: the given
// split and collection ("": the command's --collection, or its trained runs', names it), and the
// table's defaults for the rest (no data path, nothing left out, no pruning, all seeds).
DataOptions command_data_options(const std::string& split, const std::string& collection = "");

// Every field of DataOptions: JSON key, flag, help, check, may-change-on-resume (only data).
OptionTable<DataOptions> data_option_fields();

}  // namespace graphcost::data
