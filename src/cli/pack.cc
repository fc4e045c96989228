// graphcost pack ROOT --collection ID --split S --out FILE: one split of one collection as a
// single memory-mappable pack (docs/pack-format.md).
#include "io/pack.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "core/progress.h"
#include "data/collection.h"
#include "io/collection_readers.h"

namespace graphcost::cli {

namespace {

struct PackOptions {
  std::string root;
  // collection, split, exclude, skip_invalid, devices, device_name
  data::DataOptions source = data::command_data_options("train");
  std::string out;
  bool keep_duplicates = false;
  int64_t files_at_once = 0;
};

void run_pack(const PackOptions& o) {
  const data::CollectionId id = data::CollectionId::parse(o.source.collection);
  data::LoadOptions load = o.source.unpruned_load_options();
  // Test files keep every configuration: a submission names configurations by their index.
  load.merge_duplicates = !o.keep_duplicates && o.source.split != "test";
  std::unique_ptr<io::PackWriter> writer;
  std::string split = o.source.split;
  data::CollectionId pack_id = id;
  // Loads, validates and deduplicates the same way training does, so a pack holds exactly
  // what training on the npz folder would see; but only a few files at a time, written out
  // graph by graph, so packing a split never holds the whole split in memory.
  const int64_t files_at_once =
      o.files_at_once > 0 ? o.files_at_once
                          : std::max<int64_t>(1, std::thread::hardware_concurrency());
  int64_t done = 0;
  auto add = [&](Progress& progress, const data::Graph& graph, const data::ConfigView& configs,
                 const std::string& source) {
    if (!writer) {
      writer = std::make_unique<io::PackWriter>(o.out, pack_id, split, configs.kind,
                                                graph.feature_width, configs.width);
    }
    writer->add(graph, configs, source);
    progress.update(++done, graph.name);
  };
  if (io::is_pack_file(o.root) || io::is_kernel_tuner_source(o.root, o.source.split)) {
    // Read whole either way (a pack is memory-mapped; a Kernel Tuner folder shares one feature
    // layout), so the graph count is known before the first is written. Repacking keeps the
    // source pack's own id and split.
    const auto source = io::open_collection(o.root, id, o.source.split, load);
    if (io::is_pack_file(o.root)) {
      pack_id = source->id();
      split = source->split();
    }
    Progress progress("pack", source->size(), "graphs");
    for (int64_t g = 0; g < source->size(); ++g)
      add(progress, source->graph(g), source->configs(g), source->source(g));
    progress.finish();
  } else {
    // Record files are read a few at a time: one graph per .npz file, but a .pb file may hold
    // several, so with any .pb among them the total is not known beforehand.
    int64_t total = 0;
    for (const std::string& file : io::list_collection_files(o.root, id, o.source.split)) {
      const std::filesystem::path path(file);
      if (std::find(load.exclude.begin(), load.exclude.end(), path.stem().string()) !=
          load.exclude.end())
        continue;
      if (path.extension() != ".npz") {
        total = -1;
        break;
      }
      ++total;
    }
    Progress progress("pack", total, "graphs");
    io::for_each_graph(
        o.root, id, o.source.split, load, files_at_once,
        [&](const data::Graph& graph, const data::ConfigView& configs, const std::string& source) {
          add(progress, graph, configs, source);
        });
    progress.finish();
  }
  check_data(writer != nullptr, o.root, "", "no graphs to pack");
  writer->commit();
  std::printf("wrote %s: %s %s, %lld graphs, %lld configurations, %.1f MB\n", o.out.c_str(),
              pack_id.str().c_str(), split.c_str(), static_cast<long long>(writer->graphs()),
              static_cast<long long>(writer->configurations()), writer->bytes() / 1e6);
}

}  // namespace

void add_pack_command(CLI::App& app) {
  auto options = std::make_shared<PackOptions>();
  CLI::App* cmd =
      app.add_subcommand("pack", "Write one split of a collection as a single memory-mapped pack");
  cmd->add_option("root", options->root,
                  "dataset root, collection folder or split folder of .npz files")
      ->required();
  const auto data = add_data_options(cmd, options->source,
                                     {"collection", "split", "skip_invalid", "exclude", "devices", "device_name"},
                                     {{"collection", "collection id, e.g. layout:xla:random"},
                                      {"split", "split to pack"}});
  data.at("collection")->required();
  cmd->add_option("--out", options->out, "pack file to write")->required();
  cmd->add_flag("--keep-duplicates", options->keep_duplicates,
                "keep repeated configurations instead of merging them (minimum runtime); the test "
                "split always keeps them, so submission indices stay the file's own");
  cmd->add_option("--files-at-once", options->files_at_once,
                  "files read in parallel before they are written (0: one per core); memory "
                  "holds about this many graphs")
      ->capture_default_str();
  cmd->callback([options] { run_pack(*options); });
}

}  // namespace graphcost::cli
