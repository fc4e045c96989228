// graphcost split INPUT --fraction F --out DIR: each graph's configurations split into
// DIR/train and DIR/valid (e.g. train on 20% of a program's measured layouts, test on the rest).
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "data/collection.h"
#include "core/error.h"
#include "data/split.h"
#include "io/tpugraphs_npz.h"

namespace graphcost::cli {

namespace {

struct SplitOptions {
  std::string input;
  std::string out;
  std::string collection;
  double fraction = 0.2;
  uint64_t seed = 0;
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
  data::LoadOptions load;  // duplicates merged first, so no configuration lands in both parts
  data::CollectionId id;
  if (o.collection.empty()) {
    load.kind_from_data = true;
  } else {
    id = data::CollectionId::parse(o.collection);
  }
  auto collection = data::open_collection(o.input, id, "", load);
  auto* records = dynamic_cast<data::MemoryCollection*>(collection.get());
  if (!records) throw graphcost::Error(o.input, "", "split reads .npz files, not packs");
  namespace fs = std::filesystem;
  fs::create_directories(fs::path(o.out) / "train");
  fs::create_directories(fs::path(o.out) / "valid");
  for (int64_t g = 0; g < records->size(); ++g) {
    const data::GraphRecord& r = records->record(g);
    if (!r.configs.view().has_runtimes()) throw graphcost::Error(r.source, "config_runtime", "no runtimes to split");
    auto [train, valid] = data::split_configs(r, o.fraction, o.seed + g);
    const std::string name = r.graph.name + ".npz";
    io::write_tpugraphs_npz((fs::path(o.out) / "train" / name).string(), train, runtime_columns(train), true);
    io::write_tpugraphs_npz((fs::path(o.out) / "valid" / name).string(), valid, runtime_columns(valid), true);
    std::printf("%s: %lld train, %lld valid configurations\n", r.graph.name.c_str(),
                static_cast<long long>(train.configs.count), static_cast<long long>(valid.configs.count));
  }
}

}  // namespace

void add_split_command(CLI::App& app) {
  auto options = std::make_shared<SplitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "split", "Split each graph's configurations into OUT/train and OUT/valid (seeded)");
  cmd->add_option("input", options->input, "an .npz file or a folder of them")->required();
  cmd->add_option("--out", options->out, "output folder (gets train/ and valid/)")->required();
  cmd->add_option("--fraction", options->fraction, "share of configurations for train")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--seed", options->seed, "random seed")->capture_default_str();
  cmd->add_option("--collection", options->collection, "collection id (default: from the data)");
  cmd->callback([options] { run_split(*options); });
}

}  // namespace graphcost::cli
