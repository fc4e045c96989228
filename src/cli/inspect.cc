// graphcost inspect PATH: what a dataset root, collection folder, .npz file or pack holds.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/option_flags.h"
#include "core/error.h"
#include "data/collection.h"
#include "data/dedup.h"
#include "io/pack.h"
#include "data/prune.h"
#include "io/collection_readers.h"

namespace graphcost::cli {

namespace {

namespace fs = std::filesystem;

bool has_record_files(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path ext = entry.path().extension();
    if (entry.is_regular_file() && (ext == ".npz" || ext == ".pb")) return true;
  }
  return false;
}

// An empty split folder (synth plans may leave one) is skipped with a note, not an error.
bool has_record_files_or_note(const fs::path& dir) {
  if (has_record_files(dir)) return true;
  std::cerr << "inspect: " << dir.string() << ": no .npz or .pb files, skipped\n";
  return false;
}

nlohmann::json inspect_collection(const data::Collection& c, int prune_hops) {
  nlohmann::json files = nlohmann::json::array();
  for (int64_t g = 0; g < c.size(); ++g) {
    const data::Graph& graph = c.graph(g);
    data::ConfigView configs = c.configs(g);
    nlohmann::json row = {{"graph", graph.name},
                          {"source", c.source(g)},
                          {"nodes", graph.num_nodes},
                          {"edges", graph.num_edges()},
                          {"config_nodes", configs.nodes},
                          {"configs", configs.count},
                          {"distinct_configs", data::count_distinct_configs(configs)}};
    if (prune_hops >= 0) {
      const bool layout = configs.kind == data::ConfigKind::Layout && !graph.configurable_nodes.empty();
      row["kept"] = layout ? static_cast<int64_t>(
                                 data::nodes_within_hops(graph, graph.configurable_nodes, prune_hops).size())
                           : graph.num_nodes;
    }
    if (configs.failed != nullptr) {
      row["failed_configs"] = std::count(configs.failed, configs.failed + configs.count, 1);
    }
    if (configs.default_config >= 0) row["default_config"] = configs.default_config;
    if (configs.has_runtimes()) {
      auto [lo, hi] = std::minmax_element(configs.runtimes, configs.runtimes + configs.count);
      row["runtime_min"] = *lo;
      row["runtime_max"] = *hi;
    }
    files.push_back(row);
  }
  return {{"collection", c.id().str()},
          {"split", c.split()},
          {"kind", data::config_kind_name(c.id().kind)},
          {"files", c.size()},
          {"node_feature_width", c.node_feature_width()},
          {"config_width", c.config_width()},
          {"graphs", files}};
}

void print_collection(const nlohmann::json& j) {
  std::printf("%s %s: %d files, node features %d, config features %d\n",
              j["collection"].get<std::string>().c_str(), j["split"].get<std::string>().c_str(),
              j["files"].get<int>(), j["node_feature_width"].get<int>(), j["config_width"].get<int>());
  const bool pruned = !j["graphs"].empty() && j["graphs"][0].contains("kept");
  std::printf("  %-40s %8s %8s %6s %8s %9s %12s %12s%s\n", "graph", "n", "m", "nc", "c", "distinct",
              "runtime_min", "runtime_max", pruned ? "     kept" : "");
  for (const auto& row : j["graphs"]) {
    char lo_text[32], hi_text[32];
    if (row.contains("runtime_min")) {
      std::snprintf(lo_text, sizeof lo_text, "%.6g", row["runtime_min"].get<double>());
      std::snprintf(hi_text, sizeof hi_text, "%.6g", row["runtime_max"].get<double>());
    } else {
      std::snprintf(lo_text, sizeof lo_text, "-");
      std::snprintf(hi_text, sizeof hi_text, "-");
    }
    char kept_text[32] = "";
    if (pruned) std::snprintf(kept_text, sizeof kept_text, " %8lld", row["kept"].get<long long>());
    std::printf("  %-40s %8lld %8lld %6lld %8lld %9lld %12s %12s%s\n",
                row["graph"].get<std::string>().c_str(), row["nodes"].get<long long>(),
                row["edges"].get<long long>(), row["config_nodes"].get<long long>(),
                row["configs"].get<long long>(), row["distinct_configs"].get<long long>(), lo_text,
                hi_text, kept_text);
  }
}

struct InspectOptions {
  std::string path;
  // collection, skip_invalid, prune_hops, devices, device_name
  data::DataOptions source = data::command_data_options("");
  bool json = false;
  bool verify = false;
};

// --verify: every checksum of a pack, then every graph through record validation, without the
// table; one line when all is well, the first problem's one-line Error otherwise.
void verify_only(const std::string& path) {
  check_data(io::is_pack_file(path), path, "", "--verify checks packs; this is not one");
  io::PackCollection pack(path);
  pack.verify();
  for (int64_t g = 0; g < pack.size(); ++g) pack.configs(g);  // first touch: validation
  std::printf("%s: %lld graphs, %lld configurations: checksums and records ok\n", path.c_str(),
              static_cast<long long>(pack.size()),
              static_cast<long long>(pack.total_configurations()));
}

void run_inspect(const InspectOptions& o) {
  if (o.verify) return verify_only(o.path);
  data::LoadOptions load = o.source.unpruned_load_options();
  load.merge_duplicates = false;  // inspect counts duplicates, it does not merge them
  nlohmann::json out = nlohmann::json::array();
  fs::path p(o.path);
  // An unknown id is named as such, not reported as "no collection files".
  if (!o.source.collection.empty()) data::CollectionId::parse(o.source.collection);
  const std::vector<std::string> splits = {"train", "valid", "test"};
  if (io::is_pack_file(o.path)) {
    io::verify_pack(o.path);  // every checksum, configuration blocks included
    load.kind_from_data = true;
    out.push_back(inspect_collection(*io::open_collection(o.path, {}, "", load), o.source.prune_hops));
    out.back()["checksums"] = "ok";
  } else if (const std::string root = data::dataset_root_of(o.path); !root.empty()) {
    // A dataset root (or its npz/ folder): every collection and split present.
    for (const data::CollectionId& id : data::CollectionId::all()) {
      if (!o.source.collection.empty() && id.str() != o.source.collection) continue;
      for (const std::string& split : splits) {
        const fs::path dir = fs::path(root) / id.relative_dir() / split;
        if (!fs::is_directory(dir)) continue;
        if (!has_record_files_or_note(dir)) continue;
        out.push_back(inspect_collection(*io::open_collection(root, id, split, load), o.source.prune_hops));
      }
    }
    if (out.empty())
      throw Error(o.path, "", o.source.collection.empty()
                                  ? "no collection files under npz/"
                                  : "no files of collection " + o.source.collection + " under npz/");
  } else if (fs::is_directory(p) && fs::is_directory(p / "train")) {
    // A collection folder: the collection its names say (npz/tile/xla), else the kind the data has.
    data::CollectionId id;
    if (o.source.collection.empty()) {
      load.kind_from_data = true;
    } else {
      id = data::CollectionId::parse(o.source.collection);
    }
    for (const std::string& split : splits) {
      if (!fs::is_directory(p / split) || !has_record_files_or_note(p / split)) continue;
      out.push_back(
          inspect_collection(*io::open_collection(o.path, id, split, load), o.source.prune_hops));
    }
    if (out.empty()) throw Error(o.path, "", "no .npz or .pb files in its split folders");
  } else {
    // One file or one folder of files: the kind comes from the data unless a collection is named.
    data::CollectionId id;
    if (!o.source.collection.empty()) {
      id = data::CollectionId::parse(o.source.collection);
    } else {
      load.kind_from_data = true;
    }
    out.push_back(inspect_collection(*io::open_collection(o.path, id, "", load), o.source.prune_hops));
  }
  if (o.json) {
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    for (const auto& c : out) print_collection(c);
  }
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Show what a dataset root, collection folder, .npz file or pack holds: per file "
                 "n, m, nc, c, runtime range and distinct configurations");
  cmd->add_option("path", options->path, "dataset root, collection or split folder, .npz or pack")
      ->required();
  const auto data = add_data_options(
      cmd, options->source, {"collection", "skip_invalid", "prune_hops", "devices", "device_name"},
      {{"collection", "only this collection (tile:xla, layout:{xla,nlp}:{default,random})"},
       {"skip_invalid", "warn about and skip files that fail validation instead of stopping"},
       {"prune_hops",
        "also show in a column `kept` how many nodes pruning to K hops around the configurable "
        "nodes would keep (layout graphs; tile graphs keep all)"}});
  data.at("prune_hops")->check(CLI::Range(0, 1 << 20))->default_str("");
  cmd->add_flag("--json", options->json, "print JSON instead of a table");
  cmd->add_flag("--verify", options->verify,
                "packs only: check every checksum and validate every graph, print one line "
                "instead of the table");
  cmd->callback([options] { run_inspect(*options); });
}

}  // namespace graphcost::cli
