// graphcost pack ROOT --collection ID --split S --out FILE: one split of one collection as a
// single memory-mappable pack (docs/pack-format.md).
#include "io/pack.h"

#include <cstdio>

#include "cli/commands.h"
#include "core/progress.h"
#include "data/collection.h"

namespace graphcost::cli {

namespace {

struct PackOptions {
  std::string root;
  std::string collection;
  std::string split = "train";
  std::string out;
  bool skip_invalid = false;
  bool keep_duplicates = false;
  std::vector<std::string> exclude;
};

void run_pack(const PackOptions& o) {
  const data::CollectionId id = data::CollectionId::parse(o.collection);
  data::LoadOptions load;
  load.skip_invalid = o.skip_invalid;
  // Test files keep every configuration: a submission names configurations by their index.
  load.merge_duplicates = !o.keep_duplicates && o.split != "test";
  load.exclude = o.exclude;
  // Loads, validates and deduplicates the same way training does, so a pack holds exactly
  // what training on the npz folder would see.
  const auto collection = data::open_collection(o.root, id, o.split, load);
  const data::ConfigView first = collection->configs(0);
  io::PackWriter writer(o.out, collection->id(), collection->split(), first.kind,
                        collection->graph(0).feature_width, first.width);
  Progress progress("pack", collection->size(), "graphs");
  for (int64_t g = 0; g < collection->size(); ++g) {
    writer.add(collection->graph(g), collection->configs(g), collection->source(g));
    progress.update(g + 1, collection->graph(g).name);
  }
  writer.commit();
  progress.finish();
  std::printf("wrote %s: %s %s, %lld graphs, %lld configurations, %.1f MB\n", o.out.c_str(),
              collection->id().str().c_str(), collection->split().c_str(),
              static_cast<long long>(writer.graphs()),
              static_cast<long long>(writer.configurations()), writer.bytes() / 1e6);
}

}  // namespace

void add_pack_command(CLI::App& app) {
  auto options = std::make_shared<PackOptions>();
  CLI::App* cmd =
      app.add_subcommand("pack", "Write one split of a collection as a single memory-mapped pack");
  cmd->add_option("root", options->root,
                  "dataset root, collection folder or split folder of .npz files")
      ->required();
  cmd->add_option("--collection", options->collection, "collection id, e.g. layout:xla:random")
      ->required();
  cmd->add_option("--split", options->split, "split to pack")->capture_default_str();
  cmd->add_option("--out", options->out, "pack file to write")->required();
  cmd->add_flag("--skip-invalid", options->skip_invalid,
                "warn and skip files that fail validation");
  cmd->add_flag("--keep-duplicates", options->keep_duplicates,
                "keep repeated configurations instead of merging them (minimum runtime); the test "
                "split always keeps them, so submission indices stay the file's own");
  cmd->add_option("--exclude", options->exclude, "graph names (file stems) to leave out");
  cmd->callback([options] { run_pack(*options); });
}

}  // namespace graphcost::cli
