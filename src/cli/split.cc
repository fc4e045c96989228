// graphcost split INPUT --fraction F --out DIR: each graph's configurations split into
// DIR/train and DIR/valid (e.g. train on 20% of a program's measured layouts, test on the rest).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "data/collection.h"
#include "core/error.h"
#include "data/split.h"
#include "io/collection_readers.h"
#include "io/tpugraphs_npz.h"

namespace graphcost::cli {

namespace {

struct SplitOptions {
  std::string input;
  std::string out;
  // collection, devices, device_name
  data::DataOptions source = data::command_data_options("");  // collection
  double fraction = 0.2;
  uint64_t seed = 0;
  bool overwrite = false;
};

// Runtimes back to the dataset's integer columns: layout runtimes are integers already; a tile
// runtime is a ratio, stored as ratio * 1e9 over a normaliser of 1e9 (nine significant digits).
io::RuntimeColumns runtime_columns(const data::GraphRecord& r) {
  io::RuntimeColumns columns;
  const bool tile = r.configs.kind == data::ConfigKind::Tile;
  for (double t : r.configs.runtimes) {
    columns.runtime_ns.push_back(std::llround(tile ? t * 1e9 : t));
    if (tile) columns.normalizer_ns.push_back(1000000000);
  }
  return columns;
}

void run_split(const SplitOptions& o) {
  // Duplicates merged first, so no configuration lands in both parts.
  data::LoadOptions load = o.source.unpruned_load_options();
  data::CollectionId id;
  if (o.source.collection.empty()) {
    load.kind_from_data = true;
  } else {
    id = data::CollectionId::parse(o.source.collection);
  }
  auto collection = io::open_collection(o.input, id, "", load);
  auto* records = dynamic_cast<data::MemoryCollection*>(collection.get());
  if (!records) throw graphcost::Error(o.input, "", "split reads .npz files, not packs");
  namespace fs = std::filesystem;
  const fs::path out(o.out);
  std::error_code error;
  if (!o.overwrite && fs::exists(out, error)) {
    check_data(fs::is_directory(out, error) && fs::is_empty(out, error), o.out, "",
               "is not an empty folder; --overwrite replaces its train/ and valid/");
  }
  // Written beside --out and moved into place at the end: a refused graph leaves nothing
  // behind, and an earlier split is replaced whole or not at all.
  const fs::path temp = out.string() + ".tmp." + std::to_string(::getpid());
  fs::remove_all(temp, error);
  try {
    fs::create_directories(temp / "train");
    fs::create_directories(temp / "valid");
    for (int64_t g = 0; g < records->size(); ++g) {
      const data::GraphRecord& r = records->record(g);
      check_data(r.configs.view().has_runtimes(), r.source, "config_runtime", "no runtimes to split");
      auto [train, valid] = data::split_configs(r, o.fraction, o.seed + g);
      const std::string name = r.graph.name + ".npz";
      io::write_tpugraphs_npz((temp / "train" / name).string(), train, runtime_columns(train), true);
      io::write_tpugraphs_npz((temp / "valid" / name).string(), valid, runtime_columns(valid), true);
      std::printf("%s: %lld train, %lld valid configurations\n", r.graph.name.c_str(),
                  static_cast<long long>(train.configs.count),
                  static_cast<long long>(valid.configs.count));
    }
    fs::create_directories(out);
    for (const char* part : {"train", "valid"}) {
      fs::remove_all(out / part);
      fs::rename(temp / part, out / part);
    }
    fs::remove_all(temp);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(temp, error);
    throw graphcost::Error(o.out, "", std::string("cannot write the split: ") + e.code().message());
  } catch (...) {
    fs::remove_all(temp, error);
    throw;
  }
}

}  // namespace

void add_split_command(CLI::App& app) {
  auto options = std::make_shared<SplitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "split", "Split each graph's configurations into OUT/train and OUT/valid (seeded)");
  cmd->add_option("input", options->input, "an .npz file or a folder of them")->required();
  cmd->add_option("--out", options->out, "output folder (gets train/ and valid/)")->required();
  cmd->add_option("--fraction", options->fraction, "share of configurations for train, in (0, 1)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& input) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(input, value)) return "not a number: " + input;
            return value > 0 && value < 1 ? "" : "must be in (0, 1), got " + input;
          },
          "in (0, 1)"));
  cmd->add_flag("--overwrite", options->overwrite, "replace the train/ and valid/ of --out");
  cmd->add_option("--seed", options->seed, "random seed")
      ->check(unsigned_64())
      ->capture_default_str();
  add_data_options(cmd, options->source, {"collection", "devices", "device_name"},
                   {{"collection", "collection id (default: from the data)"}});
  cmd->callback([options] { run_split(*options); });
}

}  // namespace graphcost::cli
