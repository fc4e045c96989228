#include "data/data_options.h"

#include "data/prune.h"

namespace graphcost::data {

namespace {

using D = DataOptions;

const OptionField<D> kFields[] = {
    // A run may be resumed from where its data lives now.
    {"data", "--data", &D::data, "Dataset root, collection folder, .npz file or pack", nullptr,
     true},
    {"collection", "--collection", &D::collection,
     "Collection id: tile:xla or layout:{xla,nlp}:{default,random}"},
    {"split", "--split", &D::split, "Split to read (train, valid or test)"},
    {"exclude", "--exclude", &D::exclude, "Graph names (file stems) to leave out"},
    {"skip_invalid", "--skip-invalid", &D::skip_invalid,
     "Warn and skip files that fail validation"},
    {"prune_hops", "--prune-hops,--prune", &D::prune_hops,
     "Keep only nodes within K hops of a configurable node (layout; -1: no pruning)",
     [](const D& o) {
       return std::string(o.prune_hops >= -1 ? "" : "must be >= 0, or -1 for no pruning");
     }},
    {"prune_seeds", "--prune-seeds", &D::prune_seeds,
     "Configurable nodes that seed --prune-hops: all, conv-dot-reshape, or opcode names a,b "
     "(every configurable node is kept)"},
    {"devices", "--devices", &D::devices,
     "Kernel Tuner: a device table (JSON, as src/data/devices.json) adding to or replacing the "
     "built-in devices"},
    {"device_name", "--device-name", &D::device_name,
     "Kernel Tuner: the device of a cache whose device_name is empty"},
};

}  // namespace

OptionTable<DataOptions> data_option_fields() { return kFields; }

DataOptions command_data_options(const std::string& split, const std::string& collection) {
  DataOptions options;
  options.collection = collection;
  options.split = split;
  return options;
}

LoadOptions DataOptions::load_options() const {
  LoadOptions load = unpruned_load_options();
  load.prune_hops = prune_hops;
  load.prune_seed_opcodes = parse_prune_seeds(prune_seeds);
  return load;
}

LoadOptions DataOptions::unpruned_load_options() const {
  LoadOptions load;
  load.skip_invalid = skip_invalid;
  load.exclude = exclude;
  load.devices = devices;
  load.device_name = device_name;
  return load;
}

}  // namespace graphcost::data
